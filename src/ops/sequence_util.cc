// Tensor slicing/joining along one axis for the control-flow and sequence ops.
#include "ops/sequence_util.h"

#include <algorithm>

namespace ms {

namespace {
int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}
}  // namespace

Tensor slice_axis(const Tensor& t, int64_t axis, int64_t start, int64_t len) {
  const Shape& s = t.shape();
  Shape os = s;
  os[axis] = len;
  Tensor out(t.dtype(), os);
  const int64_t outer = prod(s, 0, axis), inner = prod(s, axis + 1, s.size());
  dispatch_by_size(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = raw_as<T>(t);
    T* o = raw_as<T>(out);
    for (int64_t i = 0; i < outer; ++i)
      std::copy_n(in + (i * s[axis] + start) * inner, len * inner, o + i * len * inner);
  });
  return out;
}

Tensor take_axis(const Tensor& t, int64_t axis, int64_t idx) {
  Shape os = t.shape();
  os.erase(os.begin() + axis);
  return slice_axis(t, axis, idx, 1).reshaped(os);
}

Tensor concat_axis(const std::vector<Tensor>& ts, int64_t axis, const std::string& who) {
  if (ts.empty()) fail("{}: nothing to concatenate", who);
  const Tensor& first = ts[0];
  Shape os = first.shape();
  os[axis] = 0;
  for (const Tensor& t : ts) {
    bool ok = t.dtype() == first.dtype() && t.rank() == first.rank();
    for (int d = 0; ok && d < t.rank(); ++d) ok = d == axis || t.dim(d) == first.dim(d);
    if (!ok)
      fail("{}: cannot join {} {} with {} {} along axis {}", who, dtype_name(first.dtype()), shape_str(first.shape()),
           dtype_name(t.dtype()), shape_str(t.shape()), axis);
    os[axis] += t.dim(axis);
  }
  Tensor out(first.dtype(), os);
  const int64_t outer = prod(os, 0, axis), inner = prod(os, axis + 1, os.size());
  dispatch_by_size(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = raw_as<T>(out);
    for (int64_t i = 0; i < outer; ++i)
      for (const Tensor& t : ts) {
        const int64_t n = t.dim(axis) * inner;
        o = std::copy_n(raw_as<T>(t) + i * n, n, o);
      }
  });
  return out;
}

Tensor stack_axis(const std::vector<Tensor>& ts, int64_t axis, const std::string& who) {
  std::vector<Tensor> expanded;
  for (const Tensor& t : ts) {
    if (t.shape() != ts[0].shape())
      fail("{}: cannot stack tensors of shapes {} and {}", who, shape_str(ts[0].shape()), shape_str(t.shape()));
    Shape s = t.shape();
    s.insert(s.begin() + axis, 1);
    expanded.push_back(t.reshaped(s));
  }
  return concat_axis(expanded, axis, who);
}

bool scalar_truth(const Tensor& t, const std::string& who) {
  if (t.numel() != 1) fail("{}: condition must hold one element, got shape {}", who, shape_str(t.shape()));
  if (t.dtype() == DType::Bool) return t.data<bool>()[0];
  return t.as_double(0) != 0;
}

TypeInfo sequence_type(DType elem) {
  TypeInfo t;
  t.kind = TypeInfo::Kind::Sequence;
  t.elem = std::make_shared<TypeInfo>(TypeInfo::tensor_unknown_shape(elem));
  return t;
}

}  // namespace ms
