// Helpers shared by the subcommands: argument parsing with CLI11 and error-to-exit-code mapping.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace ms::cli {

// Parses `args` with `app` and runs `body`; maps CLI11 errors to exit 2 (help to 0) and
// ms::Error to its code, printing "ms <command>: error: ..." on stderr.
int run_command(CLI::App& app, const Args& args, const std::function<int()>& body);

std::vector<std::string> split_list(const std::string& s, char sep = ',');

}  // namespace ms::cli
