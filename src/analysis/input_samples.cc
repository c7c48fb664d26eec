#include "analysis/input_samples.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "analysis/image_samples.h"
#include "formats/io/tensor_file.h"
#include "preprocess/image_folder.h"
#include "runtime/session.h"

namespace ms::analysis {

namespace fs = std::filesystem;

InputSamples::InputSamples(std::vector<Column> columns) : columns_(std::move(columns)) {
  count_ = 1;
  for (const auto& c : columns_) count_ = std::max(count_, c.count);
  for (const auto& c : columns_)
    if (c.count != 1 && c.count != count_)
      fail("the input data hold different numbers of samples ({} in {}, {} elsewhere); give every input the "
           "same number, or a single sample",
           c.count, c.label(0), count_);
}

std::vector<Value> InputSamples::sample(size_t i) const {
  std::vector<Value> feeds;
  for (const auto& c : columns_) feeds.push_back(c.get(c.count == 1 ? 0 : i));
  return feeds;
}

std::string InputSamples::label(size_t i) const {
  std::string s;
  for (const auto& c : columns_) s += (s.empty() ? "" : ", ") + c.label(c.count == 1 ? 0 : i);
  return s;
}

InputSamples::Column InputSamples::Column::single(Value v, const std::string& label) {
  return {1, [v](size_t) { return v; }, [label](size_t) { return label; }};
}

std::vector<ValueInfo> required_inputs(const Graph& g) {
  size_t required = 0;
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (!g.initializers.count(g.inputs[i].name)) required = i + 1;
  return {g.inputs.begin(), g.inputs.begin() + static_cast<std::ptrdiff_t>(required)};
}

namespace {

bool shape_fits(const TypeInfo& type, const Shape& shape, size_t skip_leading = 0) {
  if (!type.shape) return true;
  const auto& dims = *type.shape;
  if (dims.size() != shape.size()) return false;
  for (size_t i = skip_leading; i < dims.size(); ++i)
    if (dims[i].is_static() && dims[i].value != shape[i]) return false;
  return true;
}

// Sample i of `all`, whose leading axis is the sample axis, as a tensor of `shape`: a view of
// `all`'s bytes (calibration reads hundreds of samples; copying each into fresh pages cost it 8%).
Tensor slice_sample(const Tensor& all, size_t i, const Shape& shape) {
  if (all.dtype() != DType::String) {
    const size_t bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(all.dtype());
    auto keep = std::make_shared<Tensor>(all);
    return Tensor::view(all.dtype(), shape, static_cast<const char*>(all.raw()) + i * bytes, std::move(keep));
  }
  Tensor t(all.dtype(), shape);
  int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) t.data<std::string>()[k] = all.data<std::string>()[static_cast<int64_t>(i) * n + k];
  return t;
}

InputSamples::Column indexed(size_t n, const std::string& path, std::function<Value(size_t)> get) {
  return {n, std::move(get), [path](size_t i) { return fmt::format("{}[{}]", path, i); }};
}

InputSamples::Column open_npy(const std::string& path, const ValueInfo& in) {
  Tensor all = io::adapt_bfloat16_bits(io::read_npy(path), in.type);
  const TypeInfo& type = in.type;
  if (type.kind == TypeInfo::Kind::Tensor && type.dtype != DType::Undefined && all.dtype() != type.dtype)
    fail("{}: input '{}' expects {} but the file holds {}", path, in.name, dtype_name(type.dtype),
         dtype_name(all.dtype()));
  if (shape_fits(type, all.shape())) return InputSamples::Column::single(Value(all), path);
  const Shape& s = all.shape();
  if (type.shape && s.size() == type.shape->size() + 1) {
    Shape one(s.begin() + 1, s.end());
    if (shape_fits(type, one)) return indexed(static_cast<size_t>(s[0]), path, [all, one](size_t i) { return Value(slice_sample(all, i, one)); });
  }
  // [N, C, H, W] for an input declared [1, C, H, W]: each sample keeps the leading 1.
  if (type.shape && !s.empty() && !type.shape->empty() && (*type.shape)[0].value == 1 && shape_fits(type, s, 1)) {
    Shape one = s;
    one[0] = 1;
    return indexed(static_cast<size_t>(s[0]), path, [all, one](size_t i) { return Value(slice_sample(all, i, one)); });
  }
  fail("{}: shape {} fits input '{}' ({}) neither as one sample nor as samples along a leading axis", path,
       shape_str(s), in.name, type.str());
}

InputSamples::Column open_bin(const std::string& path, const ValueInfo& in) {
  // Static, or the input's dynamic batch dim read as 1 (tensor_file.h); other dynamic dims fail there.
  const TypeInfo sample = io::bin_sample_type(path, in.type, in.name);
  Shape shape = sample.static_shape();
  size_t sample_bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(sample.dtype);
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) fail("{}: cannot read file ({})", path, ec.message());
  if (sample_bytes == 0 || size == 0 || size % sample_bytes != 0)
    fail("{}: {} bytes is not a whole number of samples of input '{}' ({}, {} bytes each)", path, size, in.name,
         sample.str(), sample_bytes);
  size_t n = size / sample_bytes;
  if (n == 1) return InputSamples::Column::single(Value(io::read_bin(path, sample, in.name)), path);
  TypeInfo all_type = TypeInfo::tensor(sample.dtype, [&] {
    Shape s = shape;
    s.insert(s.begin(), static_cast<int64_t>(n));
    return s;
  }());
  Tensor all = io::read_bin(path, all_type, in.name);
  return indexed(n, path, [all, shape](size_t i) { return Value(slice_sample(all, i, shape)); });
}

InputSamples::Column open_folder(const std::string& dir, const ValueInfo& in, const preprocess::ImageOptions& images) {
  if (preprocess::holds_images(dir)) return open_image_folder(dir, in, images);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) fail("{}: the folder holds no sample files for input '{}'", dir, in.name);
  return {files.size(), [files, in](size_t i) { return io::read_tensor_file(files[i], in.type, in.name); },
          [files](size_t i) { return files[i]; }};
}

InputSamples::Column open_file(const std::string& path, const ValueInfo& in, const preprocess::ImageOptions& images) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return open_folder(path, in, images);
  if (!fs::exists(path, ec)) fail("{}: no such file (input data for '{}')", path, in.name);
  std::string ext = fs::path(path).extension().string();
  if (ext == ".npy") return open_npy(path, in);
  if (ext == ".pb") return InputSamples::Column::single(io::read_tensor_file(path, in.type, in.name), path);
  return open_bin(path, in);
}

// Checks each sample against the input it feeds, naming the file it came from.
InputSamples::Column checked(InputSamples::Column c, const ValueInfo& in) {
  auto get = c.get;
  auto label = c.label;
  c.get = [get, label, in](size_t i) {
    Value v = get(i);
    try {
      check_input_value(in, v);
    } catch (const Error& e) {
      fail("{}: {}", label(i), e.what());
    }
    return v;
  };
  return c;
}

}  // namespace

InputSamples open_input_files(const Graph& g, const std::vector<std::string>& files, const preprocess::ImageOptions& images) {
  auto required = required_inputs(g);
  if (files.size() < required.size() || files.size() > g.inputs.size()) {
    std::string names;
    for (const auto& in : required) names += (names.empty() ? "" : ", ") + in.name + " " + in.type.str();
    fail("the model needs {} input file(s) ({}) but --inDataFile gives {}", required.size(), names, files.size());
  }
  std::vector<InputSamples::Column> cols;
  for (size_t i = 0; i < files.size(); ++i) cols.push_back(checked(open_file(files[i], g.inputs[i], images), g.inputs[i]));
  return InputSamples(std::move(cols));
}

}  // namespace ms::analysis
