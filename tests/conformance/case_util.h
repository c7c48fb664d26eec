// Shared by the suite runners: test-data file lists and the comparison of outputs with the expected
// values (floats rtol 1e-3 + atol 1e-5 or, for bfloat16, one unit in the last place; everything
// else exactly).
#pragma once
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/value.h"

namespace ms::conformance {

namespace fs = std::filesystem;

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) r.push_back(item);
  return r;
}

inline std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && e.path().extension() == ".pb")
      files.emplace_back(std::stoi(n.substr(prefix.size())), e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<fs::path> r;
  for (auto& f : files) r.push_back(f.second);
  return r;
}

// One unit in the last place of bfloat16 (8 significant bits) at |b|. rtol 1e-3 is finer than that
// (2^-8 .. 2^-7 relative), and ONNX 1.12 made its float->bfloat16 expected values by truncation where
// the spec and ONNX's own later data round to nearest even: the two differ by at most this much.
inline double bfloat16_ulp(double b) {
  const int e = b == 0 ? -126 : std::max(std::ilogb(b), -126);
  return std::ldexp(1.0, e - 7);
}

// Floats: |a-b| <= atol + rtol*|b|, for bfloat16 also <= one ulp (NaN matches NaN, infinities must
// be equal); others exactly.
inline std::string compare_tensor(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.dtype() != want.dtype())
    return fmt::format("{}: dtype {} but expected {}", what, dtype_name(got.dtype()), dtype_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("{}: shape {} but expected {}", what, shape_str(got.shape()), shape_str(want.shape()));
  if (want.dtype() == DType::String) {
    for (int64_t i = 0; i < want.numel(); ++i)
      if (got.data<std::string>()[i] != want.data<std::string>()[i])
        return fmt::format("{}: string [{}] is '{}' but expected '{}'", what, i, got.data<std::string>()[i],
                           want.data<std::string>()[i]);
    return "";
  }
  const bool is_float = dtype_is_float(want.dtype());
  const bool is_bf16 = want.dtype() == DType::BFloat16;
  for (int64_t i = 0; i < want.numel(); ++i) {
    if (is_float) {
      double a = got.as_double(i), b = want.as_double(i);
      if (std::isnan(b) && std::isnan(a)) continue;
      if (std::isinf(b) && a == b) continue;
      const double tol = std::max(1e-5 + 1e-3 * std::fabs(b), is_bf16 ? bfloat16_ulp(b) : 0.0);
      if (!(std::fabs(a - b) <= tol))
        return fmt::format("{}: value [{}] is {} but expected {}", what, i, a, b);
    } else if (got.as_int64(i) != want.as_int64(i)) {
      return fmt::format("{}: value [{}] is {} but expected {}", what, i, got.as_int64(i), want.as_int64(i));
    }
  }
  return "";
}

inline std::string compare_value(const Value& got, const Value& want, const std::string& what) {
  if (want.is_none()) return got.is_none() ? "" : what + ": expected an empty optional";
  if (want.is_sequence()) {
    if (!got.is_sequence()) return what + ": expected a sequence";
    if (got.sequence.size() != want.sequence.size())
      return fmt::format("{}: sequence of {} but expected {}", what, got.sequence.size(), want.sequence.size());
    for (size_t i = 0; i < want.sequence.size(); ++i) {
      std::string r = compare_tensor(got.sequence[i], want.sequence[i], fmt::format("{}[{}]", what, i));
      if (!r.empty()) return r;
    }
    return "";
  }
  if (!got.is_tensor()) return what + ": expected a tensor";
  return compare_tensor(got.tensor, want.tensor, what);
}

struct CaseResult {
  std::string name;
  bool pass = false;
  std::string reason;
  int code = 1;  // the child's exit status (runner-defined meaning)
};

// Runs every case in a forked child (at most `jobs` at a time) so that a crashing or hanging
// kernel fails only its own case. `child` fills the reason and returns the exit status (0 = pass);
// `done` sees each result as it arrives. Returns all results.
inline std::vector<CaseResult> run_forked(const std::vector<std::pair<std::string, fs::path>>& cases, int jobs,
                                          int timeout_s,
                                          const std::function<int(const fs::path&, std::string&)>& child,
                                          const std::function<void(const CaseResult&)>& done) {
  struct Child {
    pid_t pid;
    int fd;
    std::string name;
    std::chrono::steady_clock::time_point start;
  };
  std::vector<CaseResult> results;
  std::vector<Child> running;
  size_t next = 0;
  jobs = std::max(jobs, 1);
  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && static_cast<int>(running.size()) < jobs) {
      const auto& [name, dir] = cases[next++];
      int fds[2];
      if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        std::string reason;
        int code = child(dir, reason);
        if (reason.size() > 600) reason = reason.substr(0, 600) + "...";
        if (!reason.empty()) {
          ssize_t ignored = write(fds[1], reason.data(), reason.size());
          (void)ignored;
        }
        close(fds[1]);
        _exit(code);
      }
      close(fds[1]);
      running.push_back({pid, fds[0], name, std::chrono::steady_clock::now()});
    }
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      pid_t r = waitpid(it->pid, &status, WNOHANG);
      bool timed_out = false;
      if (r == 0 && std::chrono::steady_clock::now() - it->start > std::chrono::seconds(timeout_s)) {
        kill(it->pid, SIGKILL);
        waitpid(it->pid, &status, 0);
        timed_out = true;
        r = it->pid;
      }
      if (r != it->pid) {
        ++it;
        continue;
      }
      std::string msg;
      char buf[4096];
      ssize_t n;
      while ((n = read(it->fd, buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
      close(it->fd);
      CaseResult res{it->name, false, msg, 1};
      if (timed_out) res.reason = "timeout";
      else if (WIFSIGNALED(status))
        res.reason = fmt::format("crashed with signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
      else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) res.pass = true;
      if (WIFEXITED(status)) res.code = WEXITSTATUS(status);
      if (!res.pass && res.reason.empty()) res.reason = "failed without a message";
      results.push_back(res);
      done(results.back());
      it = running.erase(it);
    }
    usleep(2000);
  }
  return results;
}

}  // namespace ms::conformance
