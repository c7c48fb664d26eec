// Seeded random inputs that respect each input's dtype (declared in input_samples.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "analysis/input_samples.h"

namespace ms::analysis {

namespace {

template <class T>
void fill_integers(Tensor& t, double lo, double hi, std::mt19937_64& rng) {
  double min = static_cast<double>(std::numeric_limits<T>::lowest());
  double max = std::min(static_cast<double>(std::numeric_limits<T>::max()), 9e18);  // stays within int64
  auto a = static_cast<int64_t>(std::clamp(std::ceil(lo), min, max));
  auto b = static_cast<int64_t>(std::clamp(std::floor(hi), min, max));
  if (a > b) fail("--inputRange {},{} holds no {} value", lo, hi, dtype_name(t.dtype()));
  std::uniform_int_distribution<int64_t> d(a, b);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(d(rng));
}

template <class T>
void fill_floats(Tensor& t, double lo, double hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(static_cast<float>(d(rng)));
}

Tensor random_tensor(const ValueInfo& in, const RandomInputOptions& o, std::mt19937_64& rng) {
  if (in.type.kind != TypeInfo::Kind::Tensor || !in.type.has_static_shape())
    fail("input '{}' is {}: random data needs a static shape; give data with --inDataFile or fix the shape with "
         "--inputShape",
         in.name, in.type.str());
  Tensor t(in.type.dtype, in.type.static_shape());
  auto [flo, fhi] = o.range.value_or(std::pair{0.0, 1.0});
  auto [ilo, ihi] = o.range.value_or(std::pair{0.0, 9.0});
  switch (t.dtype()) {
    case DType::Float32: fill_floats<float>(t, flo, fhi, rng); break;
    case DType::Float64: {
      std::uniform_real_distribution<double> d(flo, fhi);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = d(rng);
      break;
    }
    case DType::Float16: fill_floats<float16_t>(t, flo, fhi, rng); break;
    case DType::BFloat16: fill_floats<bfloat16_t>(t, flo, fhi, rng); break;
    case DType::Int8: fill_integers<int8_t>(t, ilo, ihi, rng); break;
    case DType::UInt8: fill_integers<uint8_t>(t, ilo, ihi, rng); break;
    case DType::Int16: fill_integers<int16_t>(t, ilo, ihi, rng); break;
    case DType::UInt16: fill_integers<uint16_t>(t, ilo, ihi, rng); break;
    case DType::Int32: fill_integers<int32_t>(t, ilo, ihi, rng); break;
    case DType::UInt32: fill_integers<uint32_t>(t, ilo, ihi, rng); break;
    case DType::Int64: fill_integers<int64_t>(t, ilo, ihi, rng); break;
    case DType::UInt64: fill_integers<uint64_t>(t, ilo, ihi, rng); break;
    case DType::Bool: {
      std::bernoulli_distribution d(0.5);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<bool>()[i] = d(rng);
      break;
    }
    default: fail("input '{}' of {} cannot be filled with random data; give it with --inDataFile", in.name, dtype_name(t.dtype()));
  }
  return t;
}

}  // namespace

InputSamples random_inputs(const std::vector<ValueInfo>& inputs, const RandomInputOptions& opts) {
  if (opts.range && !(opts.range->first < opts.range->second))
    fail("--inputRange {},{}: the low end must be below the high end", opts.range->first, opts.range->second);
  std::mt19937_64 rng(opts.seed);
  std::vector<InputSamples::Column> cols;
  for (const auto& in : inputs)
    cols.push_back(InputSamples::Column::single(Value(random_tensor(in, opts, rng)),
                                                fmt::format("random '{}' (seed {})", in.name, opts.seed)));
  return InputSamples(std::move(cols));
}

}  // namespace ms::analysis
