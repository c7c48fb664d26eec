// Building blocks of the self-contained HTML reports: escaping, tables, and the page around them.
// Reports carry their style inline and use no scripts, so they open offline and cannot log errors.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ms::report {

std::string html_escape(std::string_view s);

// A <table>; cells are text (escaped). `row_classes[i]` (optional) is the class of row i.
std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes = {});

// A complete page: <!DOCTYPE html>, inline style, `title` as title and heading, `body` as given.
std::string html_page(const std::string& title, const std::string& body);

}  // namespace ms::report
