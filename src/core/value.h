// A runtime value: a tensor, a sequence of tensors, or an absent optional.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace ms {

struct Value {
  enum class Kind { Tensor, Sequence, None };  // None = optional without element
  Kind kind = Kind::None;
  Tensor tensor;
  std::vector<Tensor> sequence;
  DType sequence_dtype = DType::Undefined;  // element dtype of a (possibly empty) sequence

  Value() = default;
  Value(Tensor t) : kind(Kind::Tensor), tensor(std::move(t)) {}  // NOLINT: implicit on purpose
  static Value of_sequence(std::vector<Tensor> s, DType elem) {
    Value v;
    v.kind = Kind::Sequence;
    v.sequence = std::move(s);
    v.sequence_dtype = elem;
    return v;
  }
  static Value none() { return Value(); }
  bool is_tensor() const { return kind == Kind::Tensor; }
  bool is_sequence() const { return kind == Kind::Sequence; }
  bool is_none() const { return kind == Kind::None; }
};

}  // namespace ms
