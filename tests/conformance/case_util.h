// Shared by the suite runners: test-data file lists and the comparison of outputs with the expected
// values (floats rtol 1e-3 + atol 1e-5, everything else exactly).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/value.h"

namespace ms::conformance {

namespace fs = std::filesystem;

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) r.push_back(item);
  return r;
}

inline std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ".pb")
      files.emplace_back(std::stoi(n.substr(prefix.size())), e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<fs::path> r;
  for (auto& f : files) r.push_back(f.second);
  return r;
}

// Floats: |a-b| <= atol + rtol*|b| (NaN matches NaN, infinities must be equal); others exactly.
inline std::string compare_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.dtype() != want.dtype())
    return fmt::format("{}: dtype {} but expected {}", what, dtype_name(got.dtype()), dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("{}: shape {} but expected {}", what, shape_str(got.shape()), shape_str(want.shape()));
  if (want.dtype() == DType::String) {
    for (int64_t i = 0; i < want.numel(); ++i)
      if (got.data<std::string>()[i] != want.data<std::string>()[i])
        return fmt::format("{}: string [{}] is '{}' but expected '{}'", what, i, got.data<std::string>()[i],
                           want.data<std::string>()[i]);
    return "";
  }
  bool is_float = dtype_is_float(want.dtype());
  for (int64_t i = 0; i < want.numel(); ++i) {
    if (is_float) {
      double a = got.as_double(i), b = want.as_double(i);
      if (std::isnan(b) && std::isnan(a)) continue;
      if (std::isinf(b) && a == b) continue;
      if (!(std::fabs(a - b) <= 1e-5 + 1e-3 * std::fabs(b)))
        return fmt::format("{}: value [{}] is {} but expected {}", what, i, a, b);
    } else if (got.as_int64(i) != want.as_int64(i)) {
      return fmt::format("{}: value [{}] is {} but expected {}", what, i, got.as_int64(i), want.as_int64(i));
    }
  }
  return "";
}

inline std::string compare_value(const Value& got, const Value& want, const std::string& what) {
  if (want.is_none()) return got.is_none() ? "" : what + ": expected an empty optional";
  if (want.is_sequence()) {
    if (!got.is_sequence()) return what + ": expected a sequence";
    if (got.sequence.size() != want.sequence.size())
      return fmt::format("{}: sequence of {} but expected {}", what, got.sequence.size(), want.sequence.size());
    for (size_t i = 0; i < want.sequence.size(); ++i) {
      std::string r = compare_tensor(got.sequence[i], want.sequence[i], fmt::format("{}[{}]", what, i));
      if (!r.empty()) return r;
    }
    return "";
  }
  if (!got.is_tensor()) return what + ": expected a tensor";
  return compare_tensor(got.tensor, want.tensor, what);
}

}  // namespace ms::conformance
