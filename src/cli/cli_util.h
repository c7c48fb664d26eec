// Helpers shared by the subcommands: argument parsing with CLI11 and error-to-exit-code mapping.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "formats/model_io.h"

namespace ms::cli {

// Parses `args` with `app` and runs `body`; maps CLI11 errors to exit 2 (help to 0) and
// ms::Error to its code, printing "ms <command>: error: ..." on stderr.
int run_command(CLI::App& app, const Args& args, const std::function<int()>& body);

std::vector<std::string> split_list(const std::string& s, char sep = ',');

// The element type a checked --precision/--mixedPrecision value names: fp16, bf16, else (fp32,
// off) Float32.
DType precision_type(const std::string& flag_value);

// save_model for the files a command produces. When MS_COLLECT_ONNX_DIR names a folder (the test
// suite sets it), each ONNX file written is also copied there, so that one test can prove that
// every ONNX file the suite made loads in ONNX Runtime and passes ONNX's checker.
std::string write_model_file(const Model& m, const std::string& path, ModelFormat fmt);

}  // namespace ms::cli
