// ms lint: finds the Python constructs in MindSpore network sources that break GRAPH_MODE
// compilation or MindIR export, before export. Rules are listed in docs/lint-rules.md.
#pragma once
#include <string>
#include <vector>

namespace ms::lint {

enum class Severity { Warning, Error };
enum class Target { V2, V1 };  // MindSpore 2.x (JIT fallback) or 1.x

struct Finding {
  std::string rule;  // MS-L001...
  Severity severity = Severity::Warning;
  std::string file;
  int line = 0;
  int column = 0;  // 1-based
  std::string message;
  std::string hint;
};

struct RuleSummary {
  std::string id;
  std::string title;
  Severity v2;  // the usual severity for --target 2.x (some findings of a rule can be stricter)
  Severity v1;
};

struct LintOptions {
  Target target = Target::V2;
  std::string python;  // interpreter used to parse; empty: $MS_PYTHON or python3
};

struct LintResult {
  std::vector<std::string> files;  // the Python files read, in order
  std::vector<Finding> findings;   // sorted by file, line, column, rule
  int errors() const;
  int warnings() const;
};

// Expands directories (every *.py below them, sorted), parses all files with python3 and runs every
// rule. Throws ms::Error(InvalidInput) when a path does not exist, or a file cannot be read or parsed.
LintResult lint_paths(const std::vector<std::string>& paths, const LintOptions& opt = {});

const std::vector<RuleSummary>& rule_summaries();
const char* severity_name(Severity s);
std::string format_text(const LintResult& r);
std::string format_json(const LintResult& r);

}  // namespace ms::lint
