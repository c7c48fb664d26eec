// Class labels for `ms compare --labels`: one integer per row of class scores the samples produce.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ms::analysis {

// A .npy of integers, or text with integers separated by white space or commas.
std::vector<int64_t> read_labels(const std::string& path);

}  // namespace ms::analysis
