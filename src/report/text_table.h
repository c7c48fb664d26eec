// A plain-text table for terminal output: columns padded to their widest cell, numbers right-aligned.
#pragma once
#include <string>
#include <vector>

namespace ms::report {

// A number (or one of "inf", "nan", "-"): such cells are right-aligned.
bool is_numeric_cell(const std::string& s);

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  // Every line starts with `indent` and ends with a newline.
  std::string render(const std::string& indent = "  ") const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ms::report
