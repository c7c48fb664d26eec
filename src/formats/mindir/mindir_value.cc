#include "formats/mindir/mindir_value.h"

#include <cstring>

namespace ms::mindir {

using AP = mind_ir::AttributeProto;

MsValue MsValue::of_bool(bool b) {
  MsValue v;
  v.kind = Kind::Bool;
  v.i = b ? 1 : 0;
  v.scalar_type = AP::BOOL;
  return v;
}
MsValue MsValue::of_int(int64_t x, int type) {
  MsValue v;
  v.kind = Kind::Int;
  v.i = x;
  v.scalar_type = type;
  return v;
}
MsValue MsValue::of_float(double x, int type) {
  MsValue v;
  v.kind = Kind::Float;
  v.f = x;
  v.scalar_type = type;
  return v;
}
MsValue MsValue::of_string(std::string s) {
  MsValue v;
  v.kind = Kind::String;
  v.s = std::move(s);
  v.scalar_type = AP::STRING;
  return v;
}
MsValue MsValue::of_tensor(Tensor t) {
  MsValue v;
  v.kind = Kind::Tensor;
  v.t = std::move(t);
  return v;
}
MsValue MsValue::of_dtype(DType d) {
  MsValue v;
  v.kind = Kind::DType;
  v.dtype = d;
  return v;
}
MsValue MsValue::of_ints(const std::vector<int64_t>& xs) {
  std::vector<MsValue> e;
  for (int64_t x : xs) e.push_back(of_int(x));
  return tuple(std::move(e));
}
MsValue MsValue::of_floats(const std::vector<float>& xs) {
  std::vector<MsValue> e;
  for (float x : xs) e.push_back(of_float(x));
  return tuple(std::move(e));
}
MsValue MsValue::tuple(std::vector<MsValue> e) {
  MsValue v;
  v.kind = Kind::Tuple;
  v.elems = std::move(e);
  return v;
}
MsValue MsValue::monad() {
  MsValue v;
  v.kind = Kind::Monad;
  return v;
}

double MsValue::as_double() const {
  if (kind == Kind::Bool || kind == Kind::Int) return static_cast<double>(i);
  if (kind == Kind::Float) return f;
  if (kind == Kind::Tensor && t.numel() == 1) return t.as_double(0);
  fail("expected a number, got {}", str());
}
int64_t MsValue::as_int() const {
  if (kind == Kind::Bool || kind == Kind::Int) return i;
  if (kind == Kind::Float) return static_cast<int64_t>(f);
  if (kind == Kind::Tensor && t.numel() == 1) return t.as_int64(0);
  if (is_seq() && elems.size() == 1) return elems[0].as_int();
  fail("expected an integer, got {}", str());
}
std::vector<int64_t> MsValue::as_ints() const {
  if (is_seq()) {
    std::vector<int64_t> r;
    for (const auto& e : elems) r.push_back(e.as_int());
    return r;
  }
  if (kind == Kind::Tensor) return t.to_int64_vector();
  if (kind == Kind::None) return {};
  return {as_int()};
}
std::vector<double> MsValue::as_doubles() const {
  if (is_seq()) {
    std::vector<double> r;
    for (const auto& e : elems) r.push_back(e.as_double());
    return r;
  }
  if (kind == Kind::Tensor) return t.to_double_vector();
  return {as_double()};
}
std::string MsValue::str() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return i ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return fmt::format("{}", f);
    case Kind::String: return "'" + s + "'";
    case Kind::Tensor: return "tensor " + std::string(dtype_name(t.dtype())) + shape_str(t.shape());
    case Kind::DType: return "dtype " + std::string(dtype_name(dtype));
    case Kind::Tuple:
    case Kind::List: {
      std::string r = kind == Kind::Tuple ? "(" : "[";
      for (size_t k = 0; k < elems.size(); ++k) r += (k ? "," : "") + elems[k].str();
      return r + (kind == Kind::Tuple ? ")" : "]");
    }
    case Kind::Monad: return "Monad";
    case Kind::Graph: return "graph " + s;
    case Kind::Abstract: return "abstract";
    default: return "?";
  }
}

DType dtype_from_mindir(int code, const std::string& what) {
  switch (code) {
    case 1: return DType::Float32;
    case 2: return DType::UInt8;
    case 3: return DType::Int8;
    case 4: return DType::UInt16;
    case 5: return DType::Int16;
    case 6: return DType::Int32;
    case 7: return DType::Int64;
    case 9: return DType::Bool;
    case 10: return DType::Float16;
    case 11:
    case 17: return DType::Float64;
    case 12: return DType::UInt32;
    case 13: return DType::UInt64;
    case 16: return DType::BFloat16;
    case 8: return DType::String;
    case 14:
    case 15: fail_unsupported("{}: complex tensors are not supported", what);
    case 18: fail_unsupported("{}: int4 (QINT4X2) tensors are not supported", what);
    default: fail("{}: unknown MindIR data_type {}", what, code);
  }
}

int dtype_to_mindir(DType t, bool dtype_object) {
  if (t == DType::Float64) return dtype_object ? 17 : 11;
  return static_cast<int>(t);  // the IR's codes are those of TensorProto.DataType for 1..16
}

DType dtype_from_type_id(int64_t id, const std::string& what) {
  switch (id) {
    case 30: return DType::Bool;
    case 31: return DType::Int32;
    case 32: return DType::Int8;
    case 33: return DType::Int16;
    case 34: return DType::Int32;
    case 35: return DType::Int64;
    case 37: return DType::UInt8;
    case 38: return DType::UInt16;
    case 39: return DType::UInt32;
    case 40: return DType::UInt64;
    case 41: return DType::Float32;
    case 42: return DType::Float16;
    case 43: return DType::Float32;
    case 44: return DType::Float64;
    case 45: return DType::BFloat16;
    case 12: return DType::String;
    default: fail_unsupported("{}: MindSpore TypeId {} is not supported", what, id);
  }
}

int64_t dtype_to_type_id(DType t) {
  switch (t) {
    case DType::Bool: return 30;
    case DType::Int8: return 32;
    case DType::Int16: return 33;
    case DType::Int32: return 34;
    case DType::Int64: return 35;
    case DType::UInt8: return 37;
    case DType::UInt16: return 38;
    case DType::UInt32: return 39;
    case DType::UInt64: return 40;
    case DType::Float16: return 42;
    case DType::Float32: return 43;
    case DType::Float64: return 44;
    case DType::BFloat16: return 45;
    case DType::String: return 12;
    default: return 0;
  }
}

Tensor tensor_from_raw(const mind_ir::TensorProto& p, const std::string& what) {
  DType dt = dtype_from_mindir(p.data_type(), what);
  if (dt == DType::String) fail_unsupported("{}: string tensors are not supported in MindIR", what);
  Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape)
    if (d < 0) fail("{}: tensor with data has a dynamic dimension {}", what, shape_str(shape));
  Tensor t(dt, shape);
  const std::string& raw = p.raw_data();
  if (raw.size() != t.nbytes())
    fail("{}: raw_data holds {} bytes but {}{} needs {} (the file is truncated or corrupt)", what, raw.size(),
         dtype_name(dt), shape_str(shape), t.nbytes());
  if (!raw.empty()) std::memcpy(t.raw(), raw.data(), raw.size());
  return t;
}

void tensor_to_proto(const Tensor& t, mind_ir::TensorProto* p, bool with_data) {
  if (t.dtype() == DType::String) fail_unsupported("string tensors cannot be stored in MindIR");
  for (int64_t d : t.shape()) p->add_dims(d);
  p->set_data_type(dtype_to_mindir(t.dtype()));
  if (with_data) p->set_raw_data(static_cast<const char*>(t.raw()), t.nbytes());
}

namespace {

bool is_int_type(int type) {
  switch (type) {
    case AP::UINT8: case AP::INT8: case AP::UINT16: case AP::INT16: case AP::INT32: case AP::INT64:
    case AP::UINT32: case AP::UINT64: return true;
    default: return false;
  }
}

// Packed legacy tuple: consumes elements of one repeated field in order.
struct LegacyCursor {
  const AP& a;
  int type;
  int next = 0;
  MsValue take(const std::string& what) {
    int k = next++;
    if (type == AP::STRING) {
      if (k >= a.strings_size()) fail("{}: legacy tuple has too few strings", what);
      return MsValue::of_string(a.strings(k));
    }
    if (type == AP::FLOAT) {
      if (k >= a.floats_size()) fail("{}: legacy tuple has too few floats", what);
      return MsValue::of_float(a.floats(k));
    }
    if (type == AP::DOUBLE) {
      if (k >= a.doubles_size()) fail("{}: legacy tuple has too few doubles", what);
      return MsValue::of_float(a.doubles(k), AP::DOUBLE);
    }
    if (k >= a.ints_size()) fail("{}: legacy tuple has too few ints", what);
    if (type == AP::BOOL) return MsValue::of_bool(a.ints(k) != 0);
    return MsValue::of_int(a.ints(k), type);
  }
};

// Parses "Tuple[value1,List[value2,],]," structures.
MsValue parse_legacy_seq(const std::string& s, size_t& pos, LegacyCursor& cur, const std::string& what) {
  MsValue::Kind kind = MsValue::Kind::Tuple;
  if (s.compare(pos, 6, "Tuple[") == 0) {
    pos += 6;
  } else if (s.compare(pos, 5, "List[") == 0) {
    pos += 5;
    kind = MsValue::Kind::List;
  } else {
    fail("{}: cannot parse legacy attribute '{}'", what, s);
  }
  MsValue v;
  v.kind = kind;
  while (pos < s.size()) {
    if (s[pos] == ']') {
      ++pos;
      if (pos < s.size() && s[pos] == ',') ++pos;
      return v;
    }
    if (s.compare(pos, 6, "Tuple[") == 0 || s.compare(pos, 5, "List[") == 0) {
      v.elems.push_back(parse_legacy_seq(s, pos, cur, what));
      continue;
    }
    size_t comma = s.find_first_of(",]", pos);
    if (comma == std::string::npos) fail("{}: cannot parse legacy attribute '{}'", what, s);
    v.elems.push_back(cur.take(what));
    pos = s[comma] == ',' ? comma + 1 : comma;
  }
  fail("{}: unterminated legacy attribute '{}'", what, s);
}

MsValue decode_legacy(const AP& a, const std::string& what) {
  const std::string& ref = a.ref_attr_name();
  if (ref.rfind("scalar:", 0) == 0) {
    std::string rest = ref.substr(7);
    int type = a.type();
    if (rest.rfind("Tuple[", 0) == 0 || rest.rfind("List[", 0) == 0) {
      LegacyCursor cur{a, type};
      size_t pos = 0;
      return parse_legacy_seq(rest, pos, cur, what);
    }
    if (type == AP::STRING) return MsValue::of_string(a.s());
    if (type == AP::FLOAT) return MsValue::of_float(a.f());
    if (type == AP::DOUBLE) return MsValue::of_float(a.d(), AP::DOUBLE);
    if (type == AP::BOOL) return MsValue::of_bool(a.i() != 0);
    return MsValue::of_int(a.i(), type ? type : AP::INT64);
  }
  if (ref.rfind("type:", 0) == 0) {
    if (a.tensors_size() < 1) fail("{}: dtype attribute without a tensor", what);
    return MsValue::of_dtype(dtype_from_mindir(a.tensors(0).data_type(), what));
  }
  if (ref.rfind("tensor:", 0) == 0) {
    if (a.tensors_size() < 1) fail("{}: tensor attribute without a tensor", what);
    return MsValue::of_tensor(tensor_from_raw(a.tensors(0), what));
  }
  if (ref == "none") return MsValue::none();
  if (ref.rfind("Monad:", 0) == 0) return MsValue::monad();
  if (ref.rfind("shape:", 0) == 0) {
    MsValue v;
    v.kind = MsValue::Kind::Abstract;
    return v;
  }
  MsValue v;
  v.kind = MsValue::Kind::Unknown;
  return v;
}

Abstract tensor_abstract(const mind_ir::TensorProto& t, bool scalar) {
  Abstract r;
  r.kind = scalar ? Abstract::Kind::Scalar : Abstract::Kind::Tensor;
  try {
    r.dtype = dtype_from_mindir(t.data_type(), "abstract");
  } catch (const Error&) {
    r.dtype = DType::Undefined;
  }
  r.dims.assign(t.dims().begin(), t.dims().end());
  r.rank_known = !(r.dims.size() == 1 && r.dims[0] == -2);
  if (scalar) r.dims.clear();
  return r;
}

}  // namespace

MsValue decode_value(const AP& a, const std::string& what) {
  if (a.has_ref_attr_name() && !a.ref_attr_name().empty()) return decode_legacy(a, what);
  int type = a.type();
  MsValue v;
  switch (type) {
    case AP::BOOL: return MsValue::of_bool(a.ints_size() ? a.ints(0) != 0 : a.i() != 0);
    case AP::FLOAT: return MsValue::of_float(a.floats_size() ? a.floats(0) : a.f());
    case AP::DOUBLE: return MsValue::of_float(a.doubles_size() ? a.doubles(0) : a.d(), AP::DOUBLE);
    case AP::STRING: return MsValue::of_string(a.strings_size() ? a.strings(0) : a.s());
    case AP::FLOAT16:
    case AP::BFLOAT16: return MsValue::of_float(a.floats_size() ? a.floats(0) : a.f(), type);
    case AP::TUPLE:
    case AP::LIST:
      v.kind = type == AP::TUPLE ? MsValue::Kind::Tuple : MsValue::Kind::List;
      for (const auto& e : a.values()) v.elems.push_back(decode_value(e, what));
      return v;
    case AP::TENSORS:
    case AP::TENSOR: {
      const mind_ir::TensorProto* t = a.tensors_size() ? &a.tensors(0) : (a.has_t() ? &a.t() : nullptr);
      if (!t) fail("{}: tensor attribute without a tensor", what);
      if (t->has_raw_data()) return MsValue::of_tensor(tensor_from_raw(*t, what));
      if (t->quant_params_size() > 0) {
        v.kind = MsValue::Kind::Unknown;  // a QuantizationParam value
        return v;
      }
      return MsValue::of_dtype(dtype_from_mindir(t->data_type(), what));
    }
    case AP::NONE: return MsValue::none();
    case AP::UMONAD:
    case AP::IOMONAD: return MsValue::monad();
    case AP::GRAPH:
      v.kind = MsValue::Kind::Graph;
      v.s = a.g().name();
      return v;
    default:
      if (is_int_type(type)) return MsValue::of_int(a.ints_size() ? a.ints(0) : a.i(), type);
      v.kind = MsValue::Kind::Unknown;
      return v;
  }
}

Abstract decode_abstract(const AP& a) {
  Abstract r;
  if (a.has_ref_attr_name() && !a.ref_attr_name().empty()) {
    const std::string& ref = a.ref_attr_name();
    if (ref.rfind("shape:Tuple[", 0) == 0 || ref.rfind("shape:List[", 0) == 0) {
      r.kind = Abstract::Kind::Tuple;
      for (const auto& t : a.tensors()) r.elems.push_back(tensor_abstract(t, false));
    } else if (a.tensors_size() > 0) {
      r = tensor_abstract(a.tensors(0), false);
    } else if (ref.find("Monad") != std::string::npos) {
      r.kind = Abstract::Kind::Monad;
    }
    return r;
  }
  switch (a.type()) {
    case AP::TENSORS:
      if (a.tensors_size()) r = tensor_abstract(a.tensors(0), false);
      break;
    case AP::SCALAR:
      if (a.tensors_size()) r = tensor_abstract(a.tensors(0), true);
      r.kind = Abstract::Kind::Scalar;
      break;
    case AP::TUPLE:
    case AP::LIST:
      if (a.has_seq_info() && a.seq_info().is_dyn_len()) {
        r.kind = Abstract::Kind::List;
        r.elems.push_back(a.seq_info().has_tuple_elem_item() ? decode_abstract(a.seq_info().tuple_elem_item()) : Abstract{});
        break;
      }
      r.kind = Abstract::Kind::Tuple;
      for (const auto& e : a.values()) r.elems.push_back(decode_abstract(e));
      break;
    case AP::UMONAD:
    case AP::IOMONAD: r.kind = Abstract::Kind::Monad; break;
    case AP::NONE: r.kind = Abstract::Kind::None; break;
    default: break;
  }
  return r;
}

void encode_value(const MsValue& v, AP* a, bool el) {
  switch (v.kind) {
    case MsValue::Kind::None: a->set_type(AP::NONE); break;
    case MsValue::Kind::Bool:
      a->set_type(AP::BOOL);
      el ? a->add_ints(v.i) : a->set_i(v.i);
      break;
    case MsValue::Kind::Int:
      a->set_type(static_cast<AP::AttributeType>(v.scalar_type ? v.scalar_type : AP::INT64));
      el ? a->add_ints(v.i) : a->set_i(v.i);
      break;
    case MsValue::Kind::Float:
      if (v.scalar_type == AP::DOUBLE) {
        a->set_type(AP::DOUBLE);
        el ? a->add_doubles(v.f) : a->set_d(v.f);
      } else {
        a->set_type(AP::FLOAT);
        el ? a->add_floats(static_cast<float>(v.f)) : a->set_f(static_cast<float>(v.f));
      }
      break;
    case MsValue::Kind::String:
      a->set_type(AP::STRING);
      el ? a->add_strings(v.s) : a->set_s(v.s);
      break;
    case MsValue::Kind::Tensor: {
      a->set_type(AP::TENSORS);
      auto* t = a->add_tensors();
      t->set_name("value0");
      tensor_to_proto(v.t, t, true);
      break;
    }
    case MsValue::Kind::DType: {
      a->set_type(AP::TENSORS);
      auto* t = a->add_tensors();
      t->set_name("value0");
      t->set_data_type(dtype_to_mindir(v.dtype, true));
      break;
    }
    case MsValue::Kind::Tuple:
    case MsValue::Kind::List:
      a->set_type(v.kind == MsValue::Kind::Tuple ? AP::TUPLE : AP::LIST);
      for (const auto& e : v.elems) encode_value(e, a->add_values(), true);
      break;
    case MsValue::Kind::Monad: a->set_type(AP::UMONAD); break;
    default: fail("cannot encode value {} in MindIR", v.str());
  }
}

void encode_abstract(const Abstract& abs, AP* a) {
  switch (abs.kind) {
    case Abstract::Kind::Tuple:
      a->set_type(AP::TUPLE);
      for (const auto& e : abs.elems) encode_abstract(e, a->add_values());
      a->mutable_seq_info()->set_is_dyn_len(false);
      break;
    case Abstract::Kind::List:
      a->set_type(AP::LIST);
      a->mutable_seq_info()->set_is_dyn_len(true);
      if (!abs.elems.empty() && abs.elems[0].kind != Abstract::Kind::Unknown)
        encode_abstract(abs.elems[0], a->mutable_seq_info()->mutable_tuple_elem_item());
      break;
    case Abstract::Kind::Scalar: {
      a->set_type(AP::SCALAR);
      auto* t = a->add_tensors();
      t->add_dims(0);
      t->set_data_type(dtype_to_mindir(abs.dtype));
      break;
    }
    case Abstract::Kind::Monad: a->set_type(AP::UMONAD); break;
    case Abstract::Kind::None: a->set_type(AP::NONE); break;
    default: {
      a->set_type(AP::TENSORS);
      auto* t = a->add_tensors();
      if (abs.rank_known)
        for (int64_t d : abs.dims) t->add_dims(d);
      else
        t->add_dims(-2);
      t->set_data_type(abs.dtype == DType::Undefined ? 1 : dtype_to_mindir(abs.dtype));
    }
  }
}

Abstract abstract_of(const TypeInfo& t) {
  Abstract r;
  if (t.kind == TypeInfo::Kind::Sequence) {
    r.kind = Abstract::Kind::List;
    r.elems.push_back(t.elem ? abstract_of(*t.elem) : Abstract{});
    return r;
  }
  r.kind = Abstract::Kind::Tensor;
  r.dtype = t.dtype;
  if (t.kind == TypeInfo::Kind::Tensor && t.shape) {
    r.rank_known = true;
    for (const Dim& d : *t.shape) r.dims.push_back(d.is_static() ? d.value : -1);
  }
  return r;
}

MsValue value_from_attr(const Attribute& a) {
  switch (a.type) {
    case AttrType::Int: return MsValue::of_int(a.i);
    case AttrType::Float: return MsValue::of_float(a.f);
    case AttrType::String: return MsValue::of_string(a.s);
    case AttrType::Tensor: return MsValue::of_tensor(a.t);
    case AttrType::Ints: return MsValue::of_ints(a.ints);
    case AttrType::Floats: return MsValue::of_floats(a.floats);
    case AttrType::Strings: {
      MsValue v;
      v.kind = MsValue::Kind::List;
      for (const auto& s : a.strings) v.elems.push_back(MsValue::of_string(s));
      return v;
    }
    case AttrType::Tensors: {
      MsValue v;
      v.kind = MsValue::Kind::List;
      for (const auto& t : a.tensors) v.elems.push_back(MsValue::of_tensor(t));
      return v;
    }
    default: fail_unsupported("{} attributes have no MindIR value encoding", attr_type_name(a.type));
  }
}

Attribute attr_from_value(const MsValue& v, AttrType want, const std::string& what) {
  if (want == AttrType::Undefined) {
    switch (v.kind) {
      case MsValue::Kind::Bool:
      case MsValue::Kind::Int: want = AttrType::Int; break;
      case MsValue::Kind::Float: want = AttrType::Float; break;
      case MsValue::Kind::String: want = AttrType::String; break;
      case MsValue::Kind::Tensor: want = AttrType::Tensor; break;
      case MsValue::Kind::Tuple:
      case MsValue::Kind::List:
        if (!v.elems.empty() && v.elems[0].kind == MsValue::Kind::Float) want = AttrType::Floats;
        else if (!v.elems.empty() && v.elems[0].kind == MsValue::Kind::String) want = AttrType::Strings;
        else if (!v.elems.empty() && v.elems[0].kind == MsValue::Kind::Tensor) want = AttrType::Tensors;
        else want = AttrType::Ints;
        break;
      default: fail("{}: value {} cannot be an attribute", what, v.str());
    }
  }
  switch (want) {
    case AttrType::Int: return Attribute::of_int(v.as_int());
    case AttrType::Float: return Attribute::of_float(static_cast<float>(v.as_double()));
    case AttrType::String:
      if (v.kind != MsValue::Kind::String) fail("{}: expected a string, got {}", what, v.str());
      return Attribute::of_string(v.s);
    case AttrType::Tensor:
      if (v.kind != MsValue::Kind::Tensor) fail("{}: expected a tensor, got {}", what, v.str());
      return Attribute::of_tensor(v.t);
    case AttrType::Ints: return Attribute::of_ints(v.as_ints());
    case AttrType::Floats: {
      std::vector<float> f;
      for (double d : v.as_doubles()) f.push_back(static_cast<float>(d));
      return Attribute::of_floats(f);
    }
    case AttrType::Strings: {
      std::vector<std::string> s;
      if (v.kind == MsValue::Kind::String) s.push_back(v.s);
      for (const auto& e : v.elems) s.push_back(e.s);
      return Attribute::of_strings(s);
    }
    case AttrType::Tensors: {
      Attribute a;
      a.type = AttrType::Tensors;
      for (const auto& e : v.elems) a.tensors.push_back(e.t);
      return a;
    }
    default: fail_unsupported("{}: attribute of type {} cannot be read from MindIR", what, attr_type_name(want));
  }
}

}  // namespace ms::mindir
