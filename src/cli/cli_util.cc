#include "cli/cli_util.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "core/error.h"

namespace ms::cli {

int run_command(CLI::App& app, const Args& args, const std::function<int()>& body) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\nRun 'ms " << app.get_name()
              << " --help' for the options.\n";
    return 2;
  }
  try {
    return body();
  } catch (const Error& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\n";
    return static_cast<int>(e.code()) == 4 ? 2 : static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::cerr << "ms " << app.get_name() << ": error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ms " << app.get_name() << ": error: " << e.what() << "\n";
    return 2;
  }
}

DType precision_type(const std::string& flag_value) {
  if (flag_value == "fp16") return DType::Float16;
  if (flag_value == "bf16") return DType::BFloat16;
  return DType::Float32;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) r.push_back(item);
  return r;
}

std::string write_model_file(const Model& m, const std::string& path, ModelFormat fmt) {
  const std::string written = save_model(m, path, fmt);
  const char* collect = std::getenv("MS_COLLECT_ONNX_DIR");
  if (fmt == ModelFormat::Onnx && collect && *collect) {
    namespace fs = std::filesystem;
    static std::atomic<int> serial{0};
    std::error_code ec;  // collecting is the test suite's business: it never fails the command
    fs::create_directories(collect, ec);
    const fs::path copy = fs::path(collect) / (std::to_string(getpid()) + "_" + std::to_string(serial++) + "_" +
                                               fs::path(written).filename().string());
    fs::copy_file(written, copy, fs::copy_options::overwrite_existing, ec);
  }
  return written;
}

}  // namespace ms::cli
