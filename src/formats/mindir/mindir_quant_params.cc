#include "formats/mindir/mindir_quant_params.h"

#include <cmath>

#include "formats/mindir/mindir_value.h"

namespace ms::mindir {

namespace {

using AP = mind_ir::AttributeProto;

constexpr const char* kQuantParam = "quant_param";
constexpr const char* kGraphInputQuantParam = "graph_input_quant_param";

std::pair<int64_t, int64_t> int_range(DType dt, bool narrow) {
  switch (dt) {
    case DType::Int8: return {narrow ? -127 : -128, 127};
    case DType::UInt8: return {0, narrow ? 254 : 255};
    case DType::Int32: return {INT32_MIN, INT32_MAX};
    default: fail_unsupported("linear quantization to {} is not supported in MindIR", dtype_name(dt));
  }
}

// Lite QuantParam.dstDtype holds a TypeId (Int8 32, UInt8 37, Int32 34).
int64_t type_id_of(DType dt) { return dtype_to_type_id(dt); }

template <typename T, typename Add>
void add_list(mind_ir::TensorProto_QuantParamProto* out, const char* name, const std::vector<T>& v, int elem_type, Add add) {
  AP* a = out->add_attribute();
  a->set_name(name);
  a->set_type(AP::LIST);
  for (const T& x : v) {
    AP* e = a->add_values();
    e->set_type(static_cast<AP::AttributeType>(elem_type));
    add(e, x);
  }
}

std::string type_name(int t) {
  return AP::AttributeType_IsValid(t) ? AP::AttributeType_Name(static_cast<AP::AttributeType>(t)) : std::to_string(t);
}

// The elements of LIST attribute `a` as numbers; each element must be one of `types`.
std::vector<double> list_numbers(const AP& a, std::initializer_list<int> types, const std::string& what) {
  if (a.type() != AP::LIST)
    fail("{}: quant_params attribute '{}' is {}; MindSpore requires every one to be a LIST (one element per channel)",
         what, a.name(), type_name(a.type()));
  std::vector<double> r;
  for (const auto& e : a.values()) {
    bool ok = false;
    for (int t : types) ok = ok || e.type() == t;
    if (!ok) fail("{}: quant_params attribute '{}' has an element of type {}, expected {}", what, a.name(), type_name(e.type()),
                  type_name(*types.begin()));
    if (e.type() == AP::DOUBLE && e.doubles_size() == 1) r.push_back(e.doubles(0));
    else if (e.type() == AP::FLOAT && e.floats_size() == 1) r.push_back(e.floats(0));
    else if (e.type() != AP::DOUBLE && e.type() != AP::FLOAT && e.ints_size() == 1) r.push_back(static_cast<double>(e.ints(0)));
    else fail("{}: quant_params attribute '{}' has a {} element without exactly one value", what, a.name(), type_name(e.type()));
  }
  return r;
}

}  // namespace

LinearQuant linear_quant_from_ir(const Tensor& scale, const Tensor* zero_point, DType q_dtype, bool narrow) {
  LinearQuant q;
  q.dtype = q_dtype;
  q.narrow_range = narrow;
  q.scale = scale.to_double_vector();
  // float32 -> double is exact, so the reader's float32 scale is the IR's bit for bit.
  std::vector<int64_t> z = zero_point ? zero_point->to_int64_vector() : std::vector<int64_t>{};
  auto [lo, hi] = int_range(q_dtype, narrow);
  for (size_t c = 0; c < q.scale.size(); ++c) {
    int64_t zc = z.empty() ? 0 : z[z.size() == 1 ? 0 : c];
    q.zero_point.push_back(static_cast<int32_t>(zc));
    q.min.push_back(static_cast<double>(lo - zc) * static_cast<double>(static_cast<float>(q.scale[c])));
    q.max.push_back(static_cast<double>(hi - zc) * static_cast<double>(static_cast<float>(q.scale[c])));
  }
  return q;
}

Tensor scale_tensor(const LinearQuant& q, bool per_tensor) {
  std::vector<float> s(q.scale.begin(), q.scale.end());
  return Tensor::from_vector<float>(s, per_tensor ? Shape{} : Shape{static_cast<int64_t>(s.size())});
}

Tensor zero_point_tensor(const LinearQuant& q, bool per_tensor) {
  int64_t n = static_cast<int64_t>(q.zero_point.size());
  Tensor z(q.dtype, per_tensor ? Shape{} : Shape{n});
  for (int64_t k = 0; k < (per_tensor ? 1 : n); ++k) {
    int32_t v = q.zero_point[static_cast<size_t>(k)];
    switch (q.dtype) {
      case DType::Int8: z.data<int8_t>()[k] = static_cast<int8_t>(v); break;
      case DType::UInt8: z.data<uint8_t>()[k] = static_cast<uint8_t>(v); break;
      case DType::Int32: z.data<int32_t>()[k] = v; break;
      default: fail_unsupported("zero point of {} is not supported", dtype_name(q.dtype));
    }
  }
  return z;
}

void encode_linear_quant(const LinearQuant& q, mind_ir::TensorProto_QuantParamProto* out) {
  out->set_quant_algo_name("linear_quant");
  const size_t n = q.channels();
  auto dbl = [](AP* e, double v) { e->add_doubles(v); };
  auto flt = [](AP* e, float v) { e->add_floats(v); };
  auto i32 = [](AP* e, int32_t v) { e->add_ints(v); };
  auto bln = [](AP* e, bool v) { e->add_ints(v ? 1 : 0); };
  // Element types follow the C++ fields of Lite's QuantParam (scale double, zeroPoint int, ...).
  add_list(out, "scale_list", q.scale, AP::DOUBLE, dbl);
  add_list(out, "zero_point_list", q.zero_point, AP::INT32, i32);
  add_list(out, "min_list", q.min, AP::DOUBLE, dbl);
  add_list(out, "max_list", q.max, AP::DOUBLE, dbl);
  add_list(out, "var_corr_list", std::vector<float>(n, 1.f), AP::FLOAT, flt);
  add_list(out, "mean_corr_list", std::vector<float>(n, 0.f), AP::FLOAT, flt);
  add_list(out, "num_bit_list", std::vector<int32_t>(n, q.num_bits), AP::INT32, i32);
  add_list(out, "narrow_range_list", std::vector<bool>(n, q.narrow_range), AP::BOOL, bln);
  add_list(out, "dst_dtype_list", std::vector<int32_t>(n, static_cast<int32_t>(type_id_of(q.dtype))), AP::INT32, i32);
  add_list(out, "round_type_list", std::vector<int32_t>(n, 1), AP::INT32, i32);
  add_list(out, "multiplier_list", std::vector<int32_t>(n, 1), AP::INT32, i32);
}

DType activation_dtype(const mind_ir::TensorProto_QuantParamProto& p, const std::string& what) {
  for (const auto& a : p.attribute())
    if (a.name() == "dst_dtype_list") {
      std::vector<double> v = list_numbers(a, {AP::INT32, AP::INT64}, what);
      if (v.empty()) break;
      DType dt = dtype_from_type_id(static_cast<int64_t>(v[0]), what + ": dst_dtype_list");
      if (dt != DType::Int8 && dt != DType::UInt8)
        fail_unsupported("{}: activations quantized to {} are not supported (int8 or uint8)", what, dtype_name(dt));
      return dt;
    }
  return DType::Int8;
}

std::optional<DecodedQuant> decode_linear_quant(const mind_ir::TensorProto_QuantParamProto& p, DType q_dtype,
                                                const std::string& what) {
  if (p.quant_algo_name() != "linear_quant") return std::nullopt;
  DecodedQuant d;
  d.q.dtype = q_dtype;
  std::vector<double> zp, nb, nr;
  bool have_zp = false, have_min = false, have_max = false, have_var = false, have_mean = false, have_nb = false, have_nr = false;
  std::vector<std::pair<std::string, size_t>> sizes;
  for (const auto& a : p.attribute()) {
    const std::string& n = a.name();
    std::vector<double> v;
    if (n == "scale_list") d.q.scale = v = list_numbers(a, {AP::DOUBLE, AP::FLOAT}, what);
    else if (n == "zero_point_list") zp = v = list_numbers(a, {AP::INT32, AP::INT64}, what), have_zp = true;
    else if (n == "min_list") d.q.min = v = list_numbers(a, {AP::DOUBLE, AP::FLOAT}, what), have_min = true;
    else if (n == "max_list") d.q.max = v = list_numbers(a, {AP::DOUBLE, AP::FLOAT}, what), have_max = true;
    else if (n == "var_corr_list") v = list_numbers(a, {AP::FLOAT, AP::DOUBLE}, what), have_var = true;
    else if (n == "mean_corr_list") v = list_numbers(a, {AP::FLOAT, AP::DOUBLE}, what), have_mean = true;
    else if (n == "num_bit_list") nb = v = list_numbers(a, {AP::INT32, AP::INT64}, what), have_nb = true;
    else if (n == "narrow_range_list") nr = v = list_numbers(a, {AP::BOOL}, what), have_nr = true;
    else if (n == "dst_dtype_list" || n == "round_type_list" || n == "multiplier_list") v = list_numbers(a, {AP::INT32, AP::INT64}, what);
    else if (a.type() != AP::LIST)  // attributes this reader does not use must still be LISTs
      fail("{}: quant_params attribute '{}' is {}; MindSpore requires every one to be a LIST", what, n, type_name(a.type()));
    else continue;
    sizes.emplace_back(n, v.size());
  }
  if (d.q.scale.empty()) fail("{}: linear_quant parameters without a scale_list", what);
  for (const auto& [n, s] : sizes)
    if (s != d.q.channels())
      fail("{}: quant_params attribute '{}' has {} element(s) but scale_list has {}; every list has one element per channel",
           what, n, s, d.q.channels());
  for (double s : d.q.scale)
    if (!(s > 0) || !std::isfinite(s)) fail("{}: quant_params scale {} is not a positive finite number", what, s);
  auto [lo, hi] = int_range(q_dtype, false);
  for (size_t c = 0; c < d.q.channels(); ++c) {
    double z = have_zp ? zp[c] : 0;
    if (z < static_cast<double>(lo) || z > static_cast<double>(hi))
      fail("{}: quant_params zero point {} is outside {}", what, z, dtype_name(q_dtype));
    d.q.zero_point.push_back(static_cast<int32_t>(z));
  }
  if (have_nb) {
    d.q.num_bits = static_cast<int>(nb[0]);
    for (double b : nb)
      if (b != nb[0]) fail_unsupported("{}: quant_params with different num_bits per channel are not supported", what);
  }
  if (have_nr) d.q.narrow_range = nr[0] != 0;
  d.complete = have_zp && have_min && have_max && have_var && have_mean && have_nb && have_nr;
  return d;
}

void encode_output_quant_param(const LinearQuant& q, AP* a) {
  a->set_name(kQuantParam);
  a->set_type(AP::LIST);
  AP* e = a->add_values();
  e->set_type(AP::TENSORS);
  auto* t = e->add_tensors();
  t->set_name(kQuantParam);
  encode_linear_quant(q, t->add_quant_params());
}

void encode_graph_input_quant_param(const LinearQuant& q, AP* a) {
  a->set_name(kGraphInputQuantParam);
  a->set_type(AP::TENSORS);
  auto* t = a->add_tensors();
  t->set_name(kGraphInputQuantParam);
  encode_linear_quant(q, t->add_quant_params());
}

std::vector<const mind_ir::TensorProto_QuantParamProto*> output_quant_params(const AP& a, const std::string& what) {
  if (a.type() != AP::LIST)
    fail("{}: primitive attribute 'quant_param' is {}; MindSpore writes a LIST of TENSORS named \"quant_param\"", what,
         type_name(a.type()));
  std::vector<const mind_ir::TensorProto_QuantParamProto*> r;
  for (const auto& e : a.values()) {
    if (e.type() != AP::TENSORS || e.tensors_size() != 1 || e.tensors(0).quant_params_size() < 1)
      fail("{}: an element of primitive attribute 'quant_param' is not a TENSORS value holding quant_params", what);
    r.push_back(&e.tensors(0).quant_params(0));
  }
  return r;
}

const mind_ir::TensorProto_QuantParamProto* graph_input_quant_param(const AP& a, const std::string& what) {
  if (a.type() != AP::TENSORS || a.tensors_size() != 1 || a.tensors(0).quant_params_size() < 1)
    fail("{}: primitive attribute 'graph_input_quant_param' is not a TENSORS value holding quant_params", what);
  return &a.tensors(0).quant_params(0);
}

int preferred_weight_axis(const std::string& prim, bool transpose_a, bool transpose_b, int input_index, int rank) {
  const bool matmul = prim == "MatMul" || prim == "MatMulFusion" || prim == "BatchMatMul" || prim == "MatMulV2";
  if (!matmul || rank < 2) return 0;
  if (input_index == 1) return transpose_b ? rank - 2 : rank - 1;
  if (input_index == 0) return transpose_a ? rank - 1 : rank - 2;
  return 0;
}

int resolve_weight_axis(size_t channels, const std::vector<int64_t>& dims, int preferred, const std::string& what) {
  if (channels == 1) return -1;
  const int64_t n = static_cast<int64_t>(channels);
  if (preferred >= 0 && preferred < static_cast<int>(dims.size()) && dims[preferred] == n) return preferred;
  int found = -1, count = 0;
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] == n) found = static_cast<int>(k), ++count;
  if (count == 1) return found;
  if (count == 0) fail("{}: quant_params have {} channels, but no axis of the weight {} has {} elements", what, n, shape_str(dims), n);
  fail("{}: quant_params have {} channels and several axes of the weight {} have {} elements; the consuming primitive "
       "does not say which", what, n, shape_str(dims), n);
}

int preferred_axis_in_graph(const mind_ir::GraphProto& g,
                            const std::function<const mind_ir::PrimitiveProto*(const std::string&)>& prim_of,
                            const std::string& value, int rank) {
  for (const auto& n : g.node())
    for (int i = 0; i < n.input_size(); ++i) {
      if (n.input(i) != value) continue;
      const mind_ir::PrimitiveProto* p = prim_of(n.op_type());
      const std::string prim = p ? p->op_type() : n.op_type();
      if (prim == "Load" && n.output_size()) return preferred_axis_in_graph(g, prim_of, n.output(0), rank);
      auto flag = [&](std::initializer_list<const char*> names) {
        if (p)
          for (const auto& a : p->attribute())
            for (const char* nm : names)
              if (a.name() == nm && a.type() == AP::BOOL) return a.i() != 0;
        return false;
      };
      return preferred_weight_axis(prim, flag({"transpose_a", "transpose_x1", "adj_x1"}),
                                   flag({"transpose_b", "transpose_x2", "adj_x2"}), i, rank);
    }
  return 0;
}

}  // namespace ms::mindir
