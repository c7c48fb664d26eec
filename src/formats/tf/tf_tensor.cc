#include "formats/tf/tf_tensor.h"

#include <cstring>

namespace ms::tf_format {

DType dtype_from_tf(int t) {
  if (t > 100) t -= 100;  // reference types of non-frozen variables
  switch (t) {
    case ms_tf::DT_FLOAT: return DType::Float32;
    case ms_tf::DT_DOUBLE: return DType::Float64;
    case ms_tf::DT_INT32: case ms_tf::DT_QINT32: return DType::Int32;
    case ms_tf::DT_UINT8: case ms_tf::DT_QUINT8: return DType::UInt8;
    case ms_tf::DT_INT16: case ms_tf::DT_QINT16: return DType::Int16;
    case ms_tf::DT_INT8: case ms_tf::DT_QINT8: return DType::Int8;
    case ms_tf::DT_STRING: return DType::String;
    case ms_tf::DT_INT64: return DType::Int64;
    case ms_tf::DT_BOOL: return DType::Bool;
    case ms_tf::DT_BFLOAT16: return DType::BFloat16;
    case ms_tf::DT_UINT16: case ms_tf::DT_QUINT16: return DType::UInt16;
    case ms_tf::DT_HALF: return DType::Float16;
    case ms_tf::DT_UINT32: return DType::UInt32;
    case ms_tf::DT_UINT64: return DType::UInt64;
    default: return DType::Undefined;
  }
}

namespace {

// Copies `n` typed values into the first elements and repeats the last one over the rest.
template <class T, class Src>
void fill_from(Tensor& t, const Src& vals, const std::string& where) {
  int64_t total = t.numel();
  int64_t n = vals.size();
  if (n > total) fail("{}: constant holds {} values for shape {}", where, n, shape_str(t.shape()));
  T* out = static_cast<T*>(t.raw());
  for (int64_t i = 0; i < total; ++i) {
    if (n == 0) break;
    auto v = vals.Get(static_cast<int>(i < n ? i : n - 1));
    if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)
      out[i].bits = static_cast<uint16_t>(v);
    else
      out[i] = static_cast<T>(v);
  }
}

}  // namespace

Tensor tensor_from_proto(const ms_tf::TensorProto& p, const std::string& where) {
  DType dt = dtype_from_tf(p.dtype());
  if (dt == DType::Undefined)
    fail_unsupported("{}: constant of TensorFlow type {} has no equivalent", where, ms_tf::DataType_Name(p.dtype()));
  Shape shape;
  int64_t numel = 1;
  for (const auto& d : p.tensor_shape().dim()) {
    if (d.size() < 0) fail("{}: constant with unknown dimension", where);
    // A constant repeating one value may be large, but not beyond what memory could hold.
    if (d.size() > 0 && numel > (int64_t(1) << 34) / d.size()) fail("{}: constant of more than 2^34 elements", where);
    numel *= d.size();
    shape.push_back(d.size());
  }
  Tensor t(dt, shape);
  if (!p.tensor_content().empty()) {
    if (dt == DType::String) fail("{}: string constant stored as raw bytes", where);
    if (p.tensor_content().size() != t.nbytes())
      fail("{}: tensor_content holds {} bytes, shape {} of {} needs {}", where, p.tensor_content().size(),
           shape_str(shape), dtype_name(dt), t.nbytes());
    std::memcpy(t.raw(), p.tensor_content().data(), t.nbytes());
    return t;
  }
  switch (dt) {
    case DType::Float32: fill_from<float>(t, p.float_val(), where); break;
    case DType::Float64: fill_from<double>(t, p.double_val(), where); break;
    case DType::Int32: fill_from<int32_t>(t, p.int_val(), where); break;
    case DType::Int16: fill_from<int16_t>(t, p.int_val(), where); break;
    case DType::Int8: fill_from<int8_t>(t, p.int_val(), where); break;
    case DType::UInt8: fill_from<uint8_t>(t, p.int_val(), where); break;
    case DType::UInt16: fill_from<uint16_t>(t, p.int_val(), where); break;
    case DType::Int64: fill_from<int64_t>(t, p.int64_val(), where); break;
    case DType::Bool: fill_from<bool>(t, p.bool_val(), where); break;
    case DType::UInt32: fill_from<uint32_t>(t, p.uint32_val(), where); break;
    case DType::UInt64: fill_from<uint64_t>(t, p.uint64_val(), where); break;
    case DType::Float16: fill_from<float16_t>(t, p.half_val(), where); break;
    case DType::BFloat16: fill_from<bfloat16_t>(t, p.half_val(), where); break;
    case DType::String: {
      int64_t n = p.string_val_size();
      if (n > t.numel()) fail("{}: constant holds {} strings for shape {}", where, n, shape_str(shape));
      for (int64_t i = 0; i < t.numel() && n > 0; ++i) t.data<std::string>()[i] = p.string_val(static_cast<int>(i < n ? i : n - 1));
      break;
    }
    default: fail_unsupported("{}: constant of type {}", where, dtype_name(dt));
  }
  return t;
}

}  // namespace ms::tf_format
