#include "formats/io/tensor_file.h"

#include <onnx/onnx-data_pb.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "formats/onnx/onnx_tensor.h"

namespace ms::io {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("{}: cannot open file", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// NumPy dtype descriptors without the byte-order character.
struct NpyType {
  const char* code;
  DType dtype;
};
constexpr NpyType kNpyTypes[] = {
    {"f4", DType::Float32}, {"f8", DType::Float64}, {"f2", DType::Float16}, {"i1", DType::Int8},
    {"i2", DType::Int16},   {"i4", DType::Int32},   {"i8", DType::Int64},   {"u1", DType::UInt8},
    {"u2", DType::UInt16},  {"u4", DType::UInt32},  {"u8", DType::UInt64},  {"b1", DType::Bool},
};

std::string header_value(const std::string& header, const std::string& key, const std::string& what) {
  auto k = header.find("'" + key + "'");
  if (k == std::string::npos) fail("{}: .npy header has no '{}'", what, key);
  auto colon = header.find(':', k);
  if (colon == std::string::npos) fail("{}: malformed .npy header", what);
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) fail("{}: malformed .npy header", what);
  if (header[start] == '(') {
    auto end = header.find(')', start);
    if (end == std::string::npos) fail("{}: malformed .npy shape", what);
    return header.substr(start, end - start + 1);
  }
  auto end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

std::string utf32_to_utf8(const std::u32string& u) {
  std::string out;
  for (char32_t c : u) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xc0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xe0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  return out;
}

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) fail("{}: not a .npy file", what);
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) fail("{}: truncated .npy header", what);
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) fail("{}: truncated .npy header", what);
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = header_value(header, "descr", what);
  std::string fortran = header_value(header, "fortran_order", what);
  std::string shape_text = header_value(header, "shape", what);
  if (fortran.find("True") != std::string::npos) fail_unsupported("{}: Fortran-ordered .npy is not supported", what);
  // descr like '<f4', '|b1', '|u1'
  std::string d = descr;
  d.erase(std::remove(d.begin(), d.end(), '\''), d.end());
  if (d.size() < 2) fail("{}: bad .npy dtype '{}'", what, descr);
  if (d[0] == '>') fail_unsupported("{}: big-endian .npy data is not supported", what);
  std::string code = (d[0] == '<' || d[0] == '|' || d[0] == '=') ? d.substr(1) : d;
  DType dt = DType::Undefined;
  for (const auto& t : kNpyTypes)
    if (code == t.code) dt = t.dtype;
  size_t unicode_width = 0;  // NumPy str arrays: fixed-width UTF-32
  if (dt == DType::Undefined && code.size() > 1 && code[0] == 'U') {
    try {
      unicode_width = std::stoul(code.substr(1));
    } catch (const std::exception&) {
    }
    if (unicode_width > 0) dt = DType::String;
  }
  if (dt == DType::Undefined) fail_unsupported("{}: .npy dtype '{}' is not supported", what, descr);
  Shape shape;
  std::string inner = shape_text.substr(1, shape_text.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(item.substr(b)));
    } catch (const std::exception&) {
      fail("{}: bad .npy shape {}", what, shape_text);
    }
  }
  Tensor t(dt, shape);
  size_t data_start = header_start + header_len;
  if (dt == DType::String) {
    size_t need = static_cast<size_t>(t.numel()) * unicode_width * 4;
    if (bytes.size() - data_start < need) fail("{}: .npy string data is truncated", what);
    for (int64_t i = 0; i < t.numel(); ++i) {
      std::u32string u(unicode_width, U'\0');
      std::memcpy(u.data(), bytes.data() + data_start + static_cast<size_t>(i) * unicode_width * 4, unicode_width * 4);
      u.erase(u.find_last_not_of(U'\0') + 1);
      t.data<std::string>()[i] = utf32_to_utf8(u);
    }
    return t;
  }
  if (bytes.size() - data_start < t.nbytes())
    fail("{}: .npy data is {} bytes, shape {} of {} needs {}", what, bytes.size() - data_start, shape_str(shape),
         dtype_name(dt), t.nbytes());
  if (t.nbytes()) std::memcpy(t.raw(), bytes.data() + data_start, t.nbytes());
  return t;
}

Tensor read_npy(const std::string& path) { return parse_npy(read_all(path), path); }

namespace {
// NumPy stores str arrays as fixed-width UTF-32 ('<U<n>').
std::u32string utf8_to_utf32(const std::string& s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out.push_back(cp);
    i += static_cast<size_t>(len);
  }
  return out;
}

std::string string_payload(const Tensor& t, size_t& width) {
  std::vector<std::u32string> items;
  width = 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    items.push_back(utf8_to_utf32(t.data<std::string>()[i]));
    width = std::max(width, items.back().size());
  }
  std::string out(items.size() * width * 4, '\0');
  for (size_t i = 0; i < items.size(); ++i)
    std::memcpy(&out[i * width * 4], items[i].data(), items[i].size() * 4);
  return out;
}
}  // namespace

std::string npy_bytes(const Tensor& in) {
  // bfloat16 has no NumPy type: its raw bits are written as uint16, the convention of ONNX's own
  // test data (numpy_helper stores bfloat16 tensors the same way).
  Tensor t = in.dtype() == DType::BFloat16 ? in.bitcast(DType::UInt16) : in;
  std::string code_str;
  std::string payload;
  if (t.dtype() == DType::String) {
    size_t width;
    payload = string_payload(t, width);
    code_str = "U" + std::to_string(width);
  } else {
    for (const auto& n : kNpyTypes)
      if (n.dtype == t.dtype()) code_str = n.code;
    if (code_str.empty()) fail_unsupported(".npy cannot hold {}", dtype_name(t.dtype()));
    payload.assign(static_cast<const char*>(t.raw()), t.nbytes());
  }
  const char* code = code_str.c_str();
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + ",";
  if (t.shape().size() > 1) shape.pop_back();
  shape += ")";
  char order = (code[0] != 'U' && (code[0] == 'b' || code[1] == '1')) ? '|' : '<';
  std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': {}, }}", order, code, shape);
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out += payload;
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  std::string bytes = npy_bytes(t);
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) fail("{}: cannot write file", path);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) fail("{}: write failed", path);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    fail("{}: cannot rename temporary file into place", path);
  }
}

namespace {
Value value_from_sequence(const onnx::SequenceProto& s, const std::string& path);

Value value_from_optional(const onnx::OptionalProto& o, const std::string& path) {
  switch (o.elem_type()) {
    case onnx::OptionalProto::TENSOR: return Value(onnx_format::tensor_from_proto(o.tensor_value(), "", path));
    case onnx::OptionalProto::SEQUENCE: return value_from_sequence(o.sequence_value(), path);
    default: return Value::none();
  }
}

Value value_from_sequence(const onnx::SequenceProto& s, const std::string& path) {
  std::vector<Tensor> items;
  for (const auto& t : s.tensor_values()) items.push_back(onnx_format::tensor_from_proto(t, "", path));
  if (s.sequence_values_size() || s.map_values_size() || s.optional_values_size())
    fail_unsupported("{}: nested sequences are not supported", path);
  DType dt = items.empty() ? DType::Undefined : items[0].dtype();
  return Value::of_sequence(std::move(items), dt);
}
}  // namespace

Value read_pb(const std::string& path, const TypeInfo* expected) {
  std::string bytes = read_all(path);
  if (expected && expected->kind == TypeInfo::Kind::Sequence) {
    onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) fail("{}: not a valid ONNX SequenceProto", path);
    Value v = value_from_sequence(s, path);
    if (v.sequence_dtype == DType::Undefined && expected->elem) v.sequence_dtype = expected->elem->dtype;
    return v;
  }
  if (expected && expected->kind == TypeInfo::Kind::Optional) {
    onnx::OptionalProto o;
    if (!o.ParseFromString(bytes)) fail("{}: not a valid ONNX OptionalProto", path);
    return value_from_optional(o, path);
  }
  onnx::TensorProto p;
  if (!p.ParseFromString(bytes)) fail("{}: not a valid ONNX TensorProto", path);
  return Value(onnx_format::tensor_from_proto(p, "", path));
}

namespace {

// True when `type` is a tensor whose leading dim is dynamic and every other dim static.
bool only_leading_dynamic(const TypeInfo& type) {
  if (type.kind != TypeInfo::Kind::Tensor || !type.shape || type.shape->empty()) return false;
  const auto& dims = *type.shape;
  if (dims[0].is_static()) return false;
  for (size_t k = 1; k < dims.size(); ++k)
    if (!dims[k].is_static()) return false;
  return true;
}

// "input:1,3,224,224" with every dynamic dim shown as 1, for the --inputShape hint.
std::string shape_hint(const std::string& input_name, const TypeInfo& type) {
  std::string s = input_name + ":";
  if (!type.shape) return s + "1,3,224,224";
  for (size_t k = 0; k < type.shape->size(); ++k) {
    const Dim& d = (*type.shape)[k];
    s += (k ? "," : "") + std::to_string(d.is_static() ? d.value : 1);
  }
  return s;
}

// Prints `line` on stderr unless it was printed before (calibration opens the same input's data
// once per pass; a folder of .bin files reads one file per sample).
void note_once(const std::string& line) {
  static std::mutex mu;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mu);
  if (said.insert(line).second) std::cerr << line << std::endl;
}

void note_bin_shape(const std::string& input_name, const TypeInfo& expected, const Shape& used) {
  note_once(fmt::format("note: input '{}' is {}: raw .bin data is read as {}{}{}; other shapes: --inputShape",
                        input_name, expected.str(), dtype_name(expected.dtype), shape_str(used),
                        used[0] == 1 ? " (batch 1)" : " (the file's samples as one batch)"));
}

TypeInfo sample_type(const std::string& path, const TypeInfo& expected, const std::string& input_name) {
  if (expected.kind != TypeInfo::Kind::Tensor)
    fail("{}: raw .bin data needs a tensor input, but input '{}' is {}; give a .npy or .pb file instead", path,
         input_name, expected.str());
  if (expected.dtype == DType::String) fail("{}: string input '{}' cannot be read from raw data", path, input_name);
  if (expected.has_static_shape()) return expected;
  if (!only_leading_dynamic(expected))
    fail("{}: raw .bin data needs a static shape, but input '{}' is {} (only a dynamic leading batch dim is read "
         "as 1); fix its dims with --inputShape \"{}\" (your real sizes), or give a .npy or .pb file",
         path, input_name, expected.str(), shape_hint(input_name, expected));
  Shape shape;
  for (const auto& d : *expected.shape) shape.push_back(d.is_static() ? d.value : 1);
  return TypeInfo::tensor(expected.dtype, shape);
}

}  // namespace

TypeInfo bin_sample_type(const std::string& path, const TypeInfo& expected, const std::string& input_name) {
  TypeInfo t = sample_type(path, expected, input_name);
  if (!expected.has_static_shape()) note_bin_shape(input_name, expected, t.static_shape());
  return t;
}

Tensor read_bin(const std::string& path, const TypeInfo& expected, const std::string& input_name) {
  TypeInfo sample = sample_type(path, expected, input_name);
  std::string bytes = read_all(path);
  Shape shape = sample.static_shape();
  const size_t sample_bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(sample.dtype);
  // A dynamic batch: N samples back to back are one batch of N.
  if (!expected.has_static_shape() && sample_bytes && bytes.size() > sample_bytes && bytes.size() % sample_bytes == 0)
    shape[0] = static_cast<int64_t>(bytes.size() / sample_bytes);
  Tensor t(sample.dtype, shape);
  if (bytes.size() != t.nbytes())
    fail("{}: {} bytes, but input '{}' ({}) needs {}", path, bytes.size(), input_name, expected.str(),
         expected.has_static_shape() ? std::to_string(t.nbytes())
                                     : fmt::format("a whole number of {}-byte samples", sample_bytes));
  if (!expected.has_static_shape()) note_bin_shape(input_name, expected, shape);
  if (t.nbytes()) std::memcpy(t.raw(), bytes.data(), t.nbytes());
  return t;
}

Value read_tensor_file(const std::string& path, const TypeInfo& expected, const std::string& input_name) {
  std::string ext = std::filesystem::path(path).extension().string();
  Value v;
  if (ext == ".npy") v = Value(read_npy(path));
  else if (ext == ".pb") v = read_pb(path, &expected);
  else v = Value(read_bin(path, expected, input_name));
  return v.is_tensor() ? Value(adapt_bfloat16_bits(v.tensor, expected)) : v;
}

Tensor adapt_bfloat16_bits(const Tensor& t, const TypeInfo& expected) {
  if (expected.kind == TypeInfo::Kind::Tensor && expected.dtype == DType::BFloat16 && t.dtype() == DType::UInt16)
    return t.bitcast(DType::BFloat16);
  return t;
}

}  // namespace ms::io
