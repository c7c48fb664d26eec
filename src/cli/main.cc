// `ms`: one binary, one subcommand per deployment step.
#include <unistd.h>

#include <cstdlib>
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
      {"profile", {ms::cli::cmd_profile, "per-operator time, FLOPs, memory; Chrome/Perfetto trace"}},
      {"run", {ms::cli::cmd_run, "one inference; writes output_<i>.npy per graph output"}},
      {"benchmark", {ms::cli::cmd_benchmark, "latency (min/median/mean/p99), peak memory, optional accuracy check"}},
      {"info", {ms::cli::cmd_info, "inputs, outputs, opsets, op histogram, parameters"}},
      {"convert", {ms::cli::cmd_convert, "import a model (ONNX, MindIR) and write it as MindIR or ONNX"}},
      {"onnx2ms", {ms::cli::cmd_onnx2ms, "ONNX -> MindIR with onnx2ms-style flags (also the 'onnx2ms' link)"}},
      {"optimize", {ms::cli::cmd_optimize, "graph optimization (fusions, folding) checked for equal outputs"}},
      {"quant", {ms::cli::cmd_quant, "post-training quantization (calibrated QDQ), with the accuracy it costs"}},
      {"ops", {ms::cli::cmd_ops, "list the supported operators"}},
      {"model_check", {ms::cli::cmd_model_check, "structural and deployability check (rule ids: docs/diagnostics.md)"}},
      {"compare", {ms::cli::cmd_compare, "compare a model with a reference: per output, per layer, first divergent node"}},
      {"lint", {ms::cli::cmd_lint, "MindSpore network sources: constructs that break GRAPH_MODE / MindIR export"}},
      {"preprocess", {ms::cli::cmd_preprocess, "images -> calibration tensor file (.bin/.npy): resize, crop, normalize"}},
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
  // The runtime's one thread pool is OpenMP's (oneDNN uses it too). Between parallel regions a
  // libgomp thread spins GOMP_SPINCOUNT times, then sleeps. libgomp's default (300000 spins) costs a
  // scheduler time slice per barrier when other processes compete for the cores (one run in ten
  // took 50x longer under load); never spinning (OMP_WAIT_POLICY=PASSIVE) makes every barrier a
  // futex wake-up, which on an idle 2-core machine made 2 threads slower than 1 (MobileNetV2 7.3 ms
  // vs 3.4 ms with a short spin). A short spin keeps the idle-machine speed and stays bounded under
  // load. libgomp reads this once, when it loads: set it, unless the user did, and start again.
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT") && setenv("GOMP_SPINCOUNT", "10000", 1) == 0)
    execv("/proc/self/exe", argv);
  // Second entry point: invoked through a link named onnx2ms, the arguments are onnx2ms flags.
  std::string self = argv[0] ? argv[0] : "";
  if (self.size() >= 7 && self.compare(self.size() - 7, 7, "onnx2ms") == 0)
    return ms::cli::cmd_onnx2ms(ms::cli::Args(argv + 1, argv + argc));
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
