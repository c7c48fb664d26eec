// Small builders shared by the unit tests.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "core/graph.h"

namespace ms::test {

inline ValueInfo tensor_info(const std::string& name, DType dt, const Shape& shape) {
  return {name, TypeInfo::tensor(dt, shape)};
}

inline Node make_node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                      const std::string& name = "") {
  Node n;
  n.op_type = op;
  n.name = name.empty() ? op + "_0" : name;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// A fresh empty folder under the system temp dir, removed by the caller's TearDown if wanted.
inline std::filesystem::path temp_dir(const std::string& tag) {
  auto d = std::filesystem::temp_directory_path() / ("ms_test_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

struct CmdResult {
  int code;
  std::string output;
};

// Runs a shell command and returns its exit status and standard output.
inline CmdResult run_command(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace ms::test
