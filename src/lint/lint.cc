#include "lint/lint.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.h"
#include "lint/rule.h"

namespace ms::lint {

namespace {

struct RuleDef {
  RuleSummary summary;
  void (*fn)(RuleContext&);
};

const std::vector<RuleDef>& rules() {
  using S = Severity;
  static const std::vector<RuleDef> r = {
      {{"MS-L001", "comprehension or generator expression in graph code", S::Warning, S::Error}, rule_l001},
      {{"MS-L002", "len/in/zip/isinstance applied to a tensor, or iterating a tensor", S::Warning, S::Error}, rule_l002},
      {{"MS-L003", "iterating a dict in graph code", S::Warning, S::Error}, rule_l003},
      {{"MS-L004", "if/while/range on tensor values or run-time containers", S::Warning, S::Error}, rule_l004},
      {{"MS-L005", "numpy, cv2, PIL or .asnumpy() in graph code", S::Warning, S::Error}, rule_l005},
      {{"MS-L006", "attribute creation or assignment in graph code", S::Error, S::Error}, rule_l006},
      {{"MS-L007", "reshape/view with -1 on a dynamically shaped tensor", S::Warning, S::Error}, rule_l007},
      {{"MS-L008", "random op or Dropout in the network", S::Warning, S::Warning}, rule_l008},
      {{"MS-L009", "print of tensors in graph code", S::Warning, S::Warning}, rule_l009},
      {{"MS-L010", "try/except in graph code", S::Error, S::Error}, rule_l010},
      {{"MS-L011", "global/nonlocal in graph code", S::Error, S::Error}, rule_l011},
      {{"MS-L012", "yield in graph code", S::Error, S::Error}, rule_l012},
      {{"MS-L013", "lambda capturing mutable state", S::Warning, S::Error}, rule_l013},
      {{"MS-L014", "float64/int64 numpy array turned into a Tensor", S::Warning, S::Warning}, rule_l014},
      {{"MS-L015", "construct parameter with default None", S::Warning, S::Warning}, rule_l015},
  };
  return r;
}

std::vector<std::string> expand(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& p : paths) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) fail("{}: no such file or directory", p);
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const auto& name = it->path().filename().string();
        if (it->is_directory() && (name == "__pycache__" || (name.size() > 1 && name[0] == '.'))) {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file() && it->path().extension() == ".py") found.push_back(it->path().string());
      }
      if (ec) fail("{}: cannot list the directory: {}", p, ec.message());
      std::sort(found.begin(), found.end());
      for (auto& f : found)
        if (seen.insert(f).second) out.push_back(f);
    } else if (seen.insert(p).second) {
      out.push_back(p);
    }
  }
  if (out.empty()) fail("no Python files in {}", paths.empty() ? std::string("(no path given)") : paths.front());
  return out;
}

}  // namespace

int LintResult::errors() const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::Error; }));
}
int LintResult::warnings() const { return static_cast<int>(findings.size()) - errors(); }

const char* severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

const std::vector<RuleSummary>& rule_summaries() {
  static const std::vector<RuleSummary> s = [] {
    std::vector<RuleSummary> v;
    for (const auto& r : rules()) v.push_back(r.summary);
    return v;
  }();
  return s;
}

std::string RuleContext::text(const Node& e) {
  const auto& t = ntype(e);
  if (t == "Name") return name_of(e);
  if (t == "Attribute") return text(*field(e, "value")) + "." + str_field(e, "attr");
  if (t == "Call") return text(*field(e, "func")) + "(...)";
  if (t == "Subscript") return text(*field(e, "value")) + "[...]";
  if (t == "Constant") {
    const Node* v = field(e, "value");
    if (!v) return "None";
    return v->is_string() ? "'" + v->get<std::string>() + "'" : v->dump();
  }
  return "<" + t + ">";
}

LintResult lint_paths(const std::vector<std::string>& paths, const LintOptions& opt) {
  LintResult res;
  res.files = expand(paths);
  Project project(parse_python_files(res.files, opt.python));
  std::vector<Finding> all;
  RuleContext ctx(project, opt.target, all);
  for (const auto& r : rules()) r.fn(ctx);
  // One finding per rule and position (a node can be seen from several roots or loop passes).
  std::sort(all.begin(), all.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.file, a.line, a.column, a.rule, a.message) < std::tie(b.file, b.line, b.column, b.rule, b.message);
  });
  for (auto& f : all) {
    if (!res.findings.empty()) {
      const auto& p = res.findings.back();
      if (p.file == f.file && p.line == f.line && p.column == f.column && p.rule == f.rule) {
        if (f.severity == Severity::Error) res.findings.back().severity = Severity::Error;
        continue;
      }
    }
    res.findings.push_back(std::move(f));
  }
  return res;
}

std::string format_text(const LintResult& r) {
  std::ostringstream os;
  for (const auto& f : r.findings) {
    os << f.file << ":" << f.line << ":" << f.column << ": " << severity_name(f.severity) << " " << f.rule << " " << f.message;
    if (!f.hint.empty()) os << " (hint: " << f.hint << ")";
    os << "\n";
  }
  os << r.files.size() << (r.files.size() == 1 ? " file" : " files") << " checked: " << r.errors()
     << (r.errors() == 1 ? " error, " : " errors, ") << r.warnings() << (r.warnings() == 1 ? " warning\n" : " warnings\n");
  return os.str();
}

std::string format_json(const LintResult& r) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& f : r.findings)
    a.push_back({{"rule", f.rule},
                 {"severity", severity_name(f.severity)},
                 {"file", f.file},
                 {"line", f.line},
                 {"column", f.column},
                 {"message", f.message},
                 {"hint", f.hint}});
  return a.dump(2) + "\n";
}

}  // namespace ms::lint
