#include "report/html.h"

#include "report/text_table.h"

namespace ms::report {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes) {
  std::string t = "<table>\n<thead><tr>";
  for (const auto& h : headers) t += "<th>" + html_escape(h) + "</th>";
  t += "</tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    bool cls = i < row_classes.size() && !row_classes[i].empty();
    t += cls ? "<tr class=\"" + html_escape(row_classes[i]) + "\">" : "<tr>";
    for (const auto& c : rows[i]) t += (is_numeric_cell(c) ? "<td class=\"n\">" : "<td>") + html_escape(c) + "</td>";
    t += "</tr>\n";
  }
  return t + "</tbody>\n</table>\n";
}

std::string html_page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>\n"
         "body{font-family:sans-serif;margin:2em;color:#222}\n"
         "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
         "th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;white-space:nowrap}\n"
         "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
         "th{background:#f0f0f0}\n"
         "tr.fail td{background:#fde2e2}\n"
         "tr.first td{background:#f8b4b4;font-weight:bold}\n"
         ".pass{color:#11772d;font-weight:bold}\n"
         ".fail{color:#b00020;font-weight:bold}\n"
         "</style>\n</head>\n<body>\n<h1>" +
         html_escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
}

}  // namespace ms::report
