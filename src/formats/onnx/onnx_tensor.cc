#include "formats/onnx/onnx_tensor.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace ms::onnx_format {

namespace {

namespace fs = std::filesystem;

bool is_4bit(DType dt) { return dt == DType::Int4 || dt == DType::UInt4; }

// ONNX packs 4-bit elements two per byte, element 2k in the low nibble of byte k and 2k+1 in the
// high nibble; the IR keeps one element per byte.
Tensor unpack_4bit(DType dt, const Shape& shape, const uint8_t* packed) {
  Tensor t(dt, shape);
  auto* out = static_cast<uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const uint8_t nibble = (packed[i / 2] >> (i % 2 ? 4 : 0)) & 0x0f;
    out[i] = dt == DType::Int4 && nibble >= 8 ? uint8_t(nibble | 0xf0) : nibble;  // sign-extend int4
  }
  return t;
}

std::string pack_4bit(const Tensor& t) {
  std::string packed(static_cast<size_t>((t.numel() + 1) / 2), '\0');
  const auto* in = static_cast<const uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i) packed[i / 2] = char(uint8_t(packed[i / 2]) | (in[i] & 0x0f) << (i % 2 ? 4 : 0));
  return packed;
}

size_t packed_4bit_bytes(const Shape& shape) { return static_cast<size_t>((shape_numel(shape) + 1) / 2); }

// Keeps a read-only mapping of an external data file alive for the tensors viewing it.
struct MappedFile {
  void* addr = nullptr;
  size_t size = 0;
  ~MappedFile() {
    if (addr && addr != MAP_FAILED) munmap(addr, size);
  }
};

std::shared_ptr<MappedFile> map_file(const std::string& path, const std::string& what) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) fail("{}: external data file '{}' cannot be opened", what, path);
  struct stat st {};
  fstat(fd, &st);
  auto m = std::make_shared<MappedFile>();
  m->size = static_cast<size_t>(st.st_size);
  if (m->size) m->addr = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m->size && m->addr == MAP_FAILED) fail("{}: cannot map external data file '{}'", what, path);
  return m;
}

Tensor external_tensor(const onnx::TensorProto& p, DType dt, const Shape& shape, const std::string& base_dir,
                       const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = std::stoll(kv.value());
    else if (kv.key() == "length") length = std::stoll(kv.value());
  }
  if (location.empty()) fail("{}: external data without a location", what);
  if (base_dir.empty()) fail("{}: external data '{}' is not allowed here", what, location);
  // Confine to the model's folder: an absolute path or one escaping with ".." is refused.
  fs::path base = fs::weakly_canonical(fs::path(base_dir));
  fs::path full = fs::weakly_canonical(base / location);
  auto rel = full.lexically_relative(base);
  if (fs::path(location).is_absolute() || rel.empty() || *rel.begin() == "..")
    fail("{}: external data location '{}' points outside the model's folder {}; move the data file next to the "
         "model",
         what, location, base.string());
  auto m = map_file(full.string(), what);
  const bool packed = is_4bit(dt);
  size_t need = packed ? packed_4bit_bytes(shape) : static_cast<size_t>(shape_numel(shape)) * dtype_size(dt);
  if (length >= 0 && static_cast<size_t>(length) < need)
    fail("{}: external data length {} is smaller than the {} bytes the shape {} needs", what, length, need,
         shape_str(shape));
  if (offset < 0 || static_cast<size_t>(offset) + need > m->size)
    fail("{}: external data file '{}' is {} bytes, too short for offset {} + {} bytes", what, location, m->size,
         offset, need);
  if (need == 0) return Tensor(dt, shape);
  const char* base_ptr = static_cast<const char*>(m->addr) + offset;
  if (packed) return unpack_4bit(dt, shape, reinterpret_cast<const uint8_t*>(base_ptr));
  if (reinterpret_cast<uintptr_t>(base_ptr) % 16 != 0) {  // unaligned: copy so kernels get aligned data
    Tensor t(dt, shape);
    std::memcpy(t.raw(), base_ptr, need);
    return t;
  }
  return Tensor::view(dt, shape, base_ptr, m);
}

template <class Src, class Dst>
void copy_field(const google::protobuf::RepeatedField<Src>& f, Tensor& t, const std::string& what) {
  if (f.size() != t.numel())
    fail("{}: holds {} values but its shape {} needs {}", what, f.size(), shape_str(t.shape()), t.numel());
  Dst* out = static_cast<Dst*>(t.raw());
  for (int i = 0; i < f.size(); ++i) out[i] = static_cast<Dst>(f.Get(i));
}

// int32_data carries 8/16-bit integers, bool and the raw bits of float16/bfloat16.
template <class Dst>
void copy_int32_field(const onnx::TensorProto& p, Tensor& t, const std::string& what) {
  const auto& f = p.int32_data();
  if (f.size() != t.numel())
    fail("{}: holds {} values but its shape {} needs {}", what, f.size(), shape_str(t.shape()), t.numel());
  Dst* out = static_cast<Dst*>(t.raw());
  for (int i = 0; i < f.size(); ++i) std::memcpy(&out[i], &f.Get(i), sizeof(Dst));  // little-endian low bytes
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir, const std::string& what_in) {
  std::string what = what_in.empty() ? "tensor '" + p.name() + "'" : what_in;
  if (!dtype_is_valid(p.data_type())) fail("{}: unsupported data type code {}", what, p.data_type());
  DType dt = static_cast<DType>(p.data_type());
  Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape)
    if (d < 0) fail("{}: negative dimension in {}", what, shape_str(shape));
  if (p.data_location() == onnx::TensorProto::EXTERNAL) return external_tensor(p, dt, shape, base_dir, what);

  Tensor t(dt, shape);
  if (dt == DType::String) {
    if (p.string_data_size() != t.numel())
      fail("{}: holds {} strings but its shape {} needs {}", what, p.string_data_size(), shape_str(shape), t.numel());
    auto* out = t.data<std::string>();
    for (int i = 0; i < p.string_data_size(); ++i) out[i] = p.string_data(i);
    return t;
  }
  if (is_4bit(dt)) {
    const size_t need = packed_4bit_bytes(shape);
    std::string bytes;
    if (p.has_raw_data()) {
      bytes = p.raw_data();
    } else {  // int32_data holds one packed byte per value
      for (int32_t v : p.int32_data()) bytes.push_back(char(uint8_t(v)));
    }
    if (bytes.size() != need)
      fail("{}: holds {} packed bytes but shape {} of {} needs {}", what, bytes.size(), shape_str(shape), dtype_name(dt), need);
    return unpack_4bit(dt, shape, reinterpret_cast<const uint8_t*>(bytes.data()));
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != t.nbytes())
      fail("{}: raw_data has {} bytes but shape {} of {} needs {}", what, p.raw_data().size(), shape_str(shape),
           dtype_name(dt), t.nbytes());
    if (t.nbytes()) std::memcpy(t.raw(), p.raw_data().data(), t.nbytes());
    return t;
  }
  if (t.numel() == 0) return t;
  switch (dt) {
    case DType::Float32: copy_field<float, float>(p.float_data(), t, what); break;
    case DType::Float64: copy_field<double, double>(p.double_data(), t, what); break;
    case DType::Int64: copy_field<int64_t, int64_t>(p.int64_data(), t, what); break;
    case DType::Int32: copy_field<int32_t, int32_t>(p.int32_data(), t, what); break;
    case DType::UInt32: copy_field<uint64_t, uint32_t>(p.uint64_data(), t, what); break;
    case DType::UInt64: copy_field<uint64_t, uint64_t>(p.uint64_data(), t, what); break;
    case DType::Int8: copy_field<int32_t, int8_t>(p.int32_data(), t, what); break;
    case DType::UInt8: copy_field<int32_t, uint8_t>(p.int32_data(), t, what); break;
    case DType::Int16: copy_field<int32_t, int16_t>(p.int32_data(), t, what); break;
    case DType::UInt16: copy_field<int32_t, uint16_t>(p.int32_data(), t, what); break;
    case DType::Bool: copy_field<int32_t, bool>(p.int32_data(), t, what); break;
    case DType::Float16: copy_int32_field<uint16_t>(p, t, what); break;
    case DType::BFloat16: copy_int32_field<uint16_t>(p, t, what); break;
    default: fail("{}: unsupported data type {}", what, dtype_name(dt));
  }
  return t;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.dtype() == DType::String) {
    const auto* s = t.data<std::string>();
    for (int64_t i = 0; i < t.numel(); ++i) p->add_string_data(s[i]);
    return;
  }
  if (is_4bit(t.dtype())) return p->set_raw_data(pack_4bit(t));
  p->set_raw_data(t.raw(), t.nbytes());
}

TypeInfo type_from_proto(const onnx::TypeProto& p) {
  TypeInfo t;
  switch (p.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const auto& tt = p.tensor_type();
      t.kind = TypeInfo::Kind::Tensor;
      t.dtype = dtype_is_valid(tt.elem_type()) ? static_cast<DType>(tt.elem_type()) : DType::Undefined;
      if (tt.has_shape()) {
        std::vector<Dim> dims;
        for (const auto& d : tt.shape().dim()) {
          if (d.has_dim_value()) dims.push_back(Dim::fixed(d.dim_value()));
          else if (d.has_dim_param()) dims.push_back(Dim::symbol(d.dim_param()));
          else dims.push_back(Dim{});
        }
        t.shape = std::move(dims);
      }
      break;
    }
    case onnx::TypeProto::kSequenceType:
      t.kind = TypeInfo::Kind::Sequence;
      t.elem = std::make_shared<TypeInfo>(type_from_proto(p.sequence_type().elem_type()));
      break;
    case onnx::TypeProto::kOptionalType:
      t.kind = TypeInfo::Kind::Optional;
      t.elem = std::make_shared<TypeInfo>(type_from_proto(p.optional_type().elem_type()));
      break;
    default: break;
  }
  return t;
}

void type_to_proto(const TypeInfo& t, onnx::TypeProto* p) {
  switch (t.kind) {
    case TypeInfo::Kind::Tensor: {
      auto* tt = p->mutable_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.dtype));
      if (t.shape) {
        auto* sh = tt->mutable_shape();
        for (const Dim& d : *t.shape) {
          auto* pd = sh->add_dim();
          if (d.is_static()) pd->set_dim_value(d.value);
          else if (!d.param.empty()) pd->set_dim_param(d.param);
        }
      }
      break;
    }
    case TypeInfo::Kind::Sequence:
      if (t.elem) type_to_proto(*t.elem, p->mutable_sequence_type()->mutable_elem_type());
      else p->mutable_sequence_type();
      break;
    case TypeInfo::Kind::Optional:
      if (t.elem) type_to_proto(*t.elem, p->mutable_optional_type()->mutable_elem_type());
      else p->mutable_optional_type();
      break;
    default: break;
  }
}

}  // namespace ms::onnx_format
