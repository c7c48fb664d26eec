// Subcommands of `ms`. Each takes the arguments after the subcommand name and returns the exit
// status (DESIGN.md §1: 0 ok, 1 negative verdict, 2 bad usage/input, 3 unsupported).
#pragma once
#include <string>
#include <vector>

namespace ms::cli {

using Args = std::vector<std::string>;

int cmd_run(const Args& args);
int cmd_info(const Args& args);
int cmd_convert(const Args& args);
int cmd_onnx2ms(const Args& args);
int cmd_ops(const Args& args);
int cmd_lint(const Args& args);
int cmd_model_check(const Args& args);
int cmd_optimize(const Args& args);
int cmd_compare(const Args& args);
int cmd_benchmark(const Args& args);
int cmd_profile(const Args& args);
int cmd_quant(const Args& args);
int cmd_preprocess(const Args& args);

}  // namespace ms::cli
