#include "cli/feeds.h"

#include <random>

#include "cli/cli_util.h"
#include "formats/io/tensor_file.h"

namespace ms::cli {

namespace {

// Seeded inputs for a quick smoke run when no data is given: floats in [0,1), integers in [0,10).
Tensor random_input(const ValueInfo& in, std::mt19937& rng) {
  if (in.type.kind != TypeInfo::Kind::Tensor || !in.type.has_static_shape())
    fail("input '{}' is {}: give its data with --inDataFile (random data needs a static shape)", in.name,
         in.type.str());
  Tensor t(in.type.dtype, in.type.static_shape());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = u(rng);
    switch (t.dtype()) {
      case DType::Float32: t.data<float>()[i] = static_cast<float>(v); break;
      case DType::Float64: t.data<double>()[i] = v; break;
      case DType::Float16: t.data<float16_t>()[i] = float16_t(static_cast<float>(v)); break;
      case DType::Int64: t.data<int64_t>()[i] = static_cast<int64_t>(v * 10); break;
      case DType::Int32: t.data<int32_t>()[i] = static_cast<int32_t>(v * 10); break;
      case DType::UInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(v * 10); break;
      case DType::Int8: t.data<int8_t>()[i] = static_cast<int8_t>(v * 10); break;
      case DType::Bool: t.data<bool>()[i] = v < 0.5; break;
      default: fail("input '{}' of {} needs data from --inDataFile", in.name, dtype_name(t.dtype()));
    }
  }
  return t;
}

}  // namespace

std::vector<Value> read_feeds(const Session& session, const std::string& list) {
  const auto& inputs = session.inputs();
  std::vector<Value> feeds;
  if (list.empty()) {
    std::mt19937 rng(42);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (session.input_has_default(i)) break;
      feeds.push_back(random_input(inputs[i], rng));
    }
    return feeds;
  }
  auto files = split_list(list);
  size_t required = 0;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!session.input_has_default(i)) required = i + 1;
  if (files.size() < required || files.size() > inputs.size()) {
    std::string names;
    for (size_t i = 0; i < required; ++i) names += (i ? ", " : "") + inputs[i].name + " " + inputs[i].type.str();
    fail("the model needs {} input file(s) ({}) but --inDataFile gives {}", required, names, files.size());
  }
  for (size_t i = 0; i < files.size(); ++i) {
    Value v = io::read_tensor_file(files[i], inputs[i].type, inputs[i].name);
    try {
      check_input_value(inputs[i], v);
    } catch (const Error& e) {
      fail("{}: {}", files[i], e.what());
    }
    feeds.push_back(std::move(v));
  }
  return feeds;
}

}  // namespace ms::cli
