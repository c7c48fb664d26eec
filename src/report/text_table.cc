#include "report/text_table.h"

#include <algorithm>
#include <cstdlib>

namespace ms::report {

bool is_numeric_cell(const std::string& s) {
  if (s.empty() || s == "-" || s == "inf" || s == "-inf" || s == "nan") return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && (*end == '\0' || *end == '%');
}

std::string TextTable::render(const std::string& indent) const {
  size_t ncol = headers_.size();
  for (const auto& r : rows_) ncol = std::max(ncol, r.size());
  std::vector<size_t> width(ncol, 0);
  std::vector<bool> right(ncol, true);
  auto cell = [](const std::vector<std::string>& row, size_t c) -> const std::string& {
    static const std::string none;
    return c < row.size() ? row[c] : none;
  };
  for (size_t c = 0; c < ncol; ++c) {
    width[c] = cell(headers_, c).size();
    for (const auto& r : rows_) {
      width[c] = std::max(width[c], cell(r, c).size());
      right[c] = right[c] && is_numeric_cell(cell(r, c));
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l = indent;
    for (size_t c = 0; c < ncol; ++c) {
      const std::string& s = cell(row, c);
      std::string pad(width[c] - s.size(), ' ');
      l += right[c] ? pad + s : s + pad;
      if (c + 1 < ncol) l += "  ";
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(headers_);
  for (const auto& r : rows_) line(r);
  return out;
}

}  // namespace ms::report
