// Values as MindIR encodes them in AttributeProto (Constant `value`, primitive attributes, node
// abstracts), in both encodings: the typed one (MS >= 1.7) and the legacy `ref_attr_name` one
// (MS <= 1.6). shared/docs/mindir-format.md §2.6-2.8 and §2.11 give the rules.
#pragma once
#include <string>
#include <vector>

#include "core/graph.h"
#include "mind_ir.pb.h"

namespace ms::mindir {

// One decoded value. Scalars keep the AttributeType they were written with (`scalar_type`) so that a
// writer can reproduce it and a reader can tell bool from int.
struct MsValue {
  enum class Kind { None, Bool, Int, Float, String, Tensor, DType, Tuple, List, Monad, Graph, Abstract, Unknown };
  Kind kind = Kind::None;
  int64_t i = 0;       // Bool, Int
  double f = 0;        // Float (float32 or float64 by scalar_type)
  std::string s;       // String; Graph (graph name)
  int scalar_type = 0;  // mind_ir::AttributeProto::AttributeType of a scalar (INT64, FLOAT, DOUBLE, ...)
  Tensor t;            // Tensor
  DType dtype = DType::Undefined;  // DType
  std::vector<MsValue> elems;      // Tuple, List

  static MsValue none() { return {}; }
  static MsValue of_bool(bool b);
  static MsValue of_int(int64_t v, int type = mind_ir::AttributeProto::INT64);
  static MsValue of_float(double v, int type = mind_ir::AttributeProto::FLOAT);
  static MsValue of_string(std::string v);
  static MsValue of_tensor(Tensor t);
  static MsValue of_dtype(DType d);
  static MsValue of_ints(const std::vector<int64_t>& v);  // TUPLE of INT64
  static MsValue of_floats(const std::vector<float>& v);  // TUPLE of FLOAT
  static MsValue tuple(std::vector<MsValue> e);
  static MsValue monad();

  bool is_scalar() const { return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float; }
  bool is_seq() const { return kind == Kind::Tuple || kind == Kind::List; }
  double as_double() const;   // scalar, or a 1-element tensor
  int64_t as_int() const;
  std::vector<int64_t> as_ints() const;  // int scalar, tuple of ints, or integer tensor
  std::vector<double> as_doubles() const;
  std::string str() const;    // for messages
};

// The type of a node's output as the `shape` attribute describes it (§2.6).
struct Abstract {
  // List: a list of dynamic length (seq_info.is_dyn_len, MindSpore 2.x); elems[0] is the element
  // abstract. It carries the IR's sequence values (mindir_sequence_forms.cc).
  enum class Kind { Unknown, Tensor, Scalar, Tuple, Monad, None, List } kind = Kind::Unknown;
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;  // -1 dynamic dim; {-2} dynamic rank
  bool rank_known = false;
  std::vector<Abstract> elems;
};

// MindIR TensorProto.DataType <-> IR dtype (§2.11). FLOAT64 17 and DOUBLE 11 both read as float64.
DType dtype_from_mindir(int code, const std::string& what);
int dtype_to_mindir(DType t, bool dtype_object = false);
// MindSpore TypeId numbers (Lite Cast.to, prim-function dtype inputs).
DType dtype_from_type_id(int64_t id, const std::string& what);
int64_t dtype_to_type_id(DType t);

// Tensor data from raw_data (inline). `what` names the tensor in messages.
Tensor tensor_from_raw(const mind_ir::TensorProto& p, const std::string& what);
// dims + data_type (+ raw_data when with_data).
void tensor_to_proto(const Tensor& t, mind_ir::TensorProto* p, bool with_data);

MsValue decode_value(const mind_ir::AttributeProto& a, const std::string& what);
Abstract decode_abstract(const mind_ir::AttributeProto& a);
void encode_value(const MsValue& v, mind_ir::AttributeProto* a, bool as_element = false);
void encode_abstract(const Abstract& abs, mind_ir::AttributeProto* a);
Abstract abstract_of(const TypeInfo& t);

// IR attribute <-> value. `want` is the attribute type the op schema declares (Undefined: infer).
MsValue value_from_attr(const Attribute& a);
Attribute attr_from_value(const MsValue& v, AttrType want, const std::string& what);

}  // namespace ms::mindir
