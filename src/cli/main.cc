// `ms`: one binary, one subcommand per deployment step.
#include <cstring>
#include <iostream>
#include <map>

#include "cli/commands.h"

namespace {

struct Command {
  int (*fn)(const ms::cli::Args&);
  const char* summary;
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> c = {
      {"run", {ms::cli::cmd_run, "one inference; writes output_<i>.npy per graph output"}},
      {"info", {ms::cli::cmd_info, "inputs, outputs, opsets, op histogram, parameters"}},
      {"convert", {ms::cli::cmd_convert, "import a model and write it (ONNX)"}},
  };
  return c;
}

void usage(std::ostream& os) {
  os << "usage: ms <command> [options]\n\ncommands:\n";
  for (const auto& [name, c] : commands()) os << "  " << name << std::string(12 - name.size(), ' ') << c.summary << "\n";
  os << "\nRun 'ms <command> --help' for the options of a command.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(std::cout);
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "ms (mstools) 0.1.0\n";
    return 0;
  }
  auto it = commands().find(cmd);
  if (it == commands().end()) {
    std::cerr << "ms: unknown command '" << cmd << "'\n";
    usage(std::cerr);
    return 2;
  }
  return it->second.fn(ms::cli::Args(argv + 2, argv + argc));
}
