#include "analysis/labels.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/io/tensor_file.h"

namespace ms::analysis {

std::vector<int64_t> read_labels(const std::string& path) {
  std::vector<int64_t> labels;
  if (std::filesystem::path(path).extension() == ".npy") {
    Tensor t = io::read_npy(path);
    if (!dtype_is_integer(t.dtype())) fail("{}: labels must be integers, the file holds {}", path, dtype_name(t.dtype()));
    return t.to_int64_vector();
  }
  std::ifstream f(path);
  if (!f) fail("{}: cannot open the labels file", path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size()) fail("{}: '{}' is not an integer class label", path, word);
    labels.push_back(v);
  }
  if (labels.empty()) fail("{}: no labels in the file", path);
  return labels;
}

}  // namespace ms::analysis
