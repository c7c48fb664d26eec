// ms lint: MindSpore network sources -> the constructs that break GRAPH_MODE / MindIR export.
#include <iostream>

#include "cli/cli_util.h"
#include "lint/lint.h"

namespace ms::cli {

int cmd_lint(const Args& args) {
  CLI::App app("Find the Python constructs in MindSpore network code (nn.Cell construct methods and what they call) "
               "that break GRAPH_MODE compilation or MindIR export. Parses with python3's ast module.\n"
               "Exit status: 0 no error-severity finding, 1 at least one, 2 a path cannot be read or parsed.",
               "lint");
  std::vector<std::string> paths;
  std::string format = "text", target = "2.x";
  app.add_option("paths", paths, "Python files or directories (searched recursively for *.py)")->required();
  app.add_option("--format", format, "text (one line per finding) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--target", target, "MindSpore version whose GRAPH_MODE decides severities: 2.x or 1.x")
      ->check(CLI::IsMember({"2.x", "1.x"}))
      ->capture_default_str();
  return run_command(app, args, [&] {
    lint::LintOptions opt;
    opt.target = target == "1.x" ? lint::Target::V1 : lint::Target::V2;
    lint::LintResult r = lint::lint_paths(paths, opt);
    if (format == "json") std::cout << lint::format_json(r);
    else std::cout << lint::format_text(r);
    return r.errors() > 0 ? 1 : 0;
  });
}

}  // namespace ms::cli
