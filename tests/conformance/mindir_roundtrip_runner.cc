// MindIR round trip of the ONNX backend test cases: each model.onnx is imported, written as MindIR
// (in memory, the same writer as `ms convert`), read back, and run; the outputs must match the
// case's expected outputs exactly as the ONNX run does (same tolerance as onnx_backend_runner).
// Cases that fail as ONNX already are skipped (the acceptance covers what passes as ONNX). A case
// whose conversion is refused for an op with no MindSpore primitive passes only when every op the
// writer names is listed in --expected-failures (one op type per line; `suite/case` lines name
// individual known failures). Every ONNX tensor name must be found again after the round trip
// (the convention of core/tensor_origin.h). Each case runs in a forked child.
// Exit status: 0 when every failure is expected, 1 otherwise.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "case_util.h"
#include "data_defects.h"
#include "core/tensor_origin.h"
#include "formats/io/tensor_file.h"
#include "formats/mindir/mindir_reader.h"
#include "formats/mindir/mindir_writer.h"
#include "formats/onnx/onnx_importer.h"
#include "runtime/session.h"

namespace fs = std::filesystem;
using namespace ms;
using namespace ms::conformance;

namespace {

struct Options {
  std::string data;
  std::vector<std::string> suites;
  std::string filter = ".*";
  std::string expected_failures;
  int jobs = 2;
  int timeout_s = 120;
  bool verbose = false;
};

// Runs one case; returns "" on success or the reason for failure.
std::string run_model_case(const fs::path& dir, const Model& m) {
  try {
    auto model = std::make_shared<const Model>(m);
    Session session(model);
    bool any = false;
    for (const auto& set : fs::directory_iterator(dir)) {
      if (!set.is_directory() || set.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
      any = true;
      std::vector<Value> feeds;
      auto inputs = numbered_files(set.path(), "input_");
      for (size_t i = 0; i < inputs.size(); ++i) {
        const TypeInfo* t = i < model->graph.inputs.size() ? &model->graph.inputs[i].type : nullptr;
        Value v = io::read_pb(inputs[i].string(), t);
        if (t && v.is_tensor()) v = Value(io::adapt_bfloat16_bits(v.tensor, *t));
        feeds.push_back(std::move(v));
      }
      auto outs = session.run(feeds);
      auto expected = numbered_files(set.path(), "output_");
      if (expected.size() != outs.size())
        return fmt::format("{} outputs but {} expected", outs.size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        Value want = io::read_pb(expected[i].string(), &model->graph.outputs[i].type);
        if (want.is_tensor()) want = Value(io::adapt_bfloat16_bits(want.tensor, model->graph.outputs[i].type));
        std::string r = compare_value(outs[i], want, fmt::format("{}/output_{}", set.path().filename().string(), i));
        if (!r.empty()) return r;
      }
    }
    if (!any) return "no test_data_set";
    return "";
  } catch (const Error& e) {
    return std::string(e.code() == ErrorCode::Unsupported ? "unsupported: " : "error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

// The compare tool pairs tensors by name: every graph input and node output of the ONNX model
// (Constant nodes aside; MindIR folds them into value nodes) must be a value of the re-imported
// model under its own name or through metadata "ms.tensor_origin". Returns "" or the complaint.
std::string lost_tensor_name(const Model& original, const Model& back) {
  std::set<std::string> have;
  for (const auto& v : back.graph.inputs) have.insert(v.name);
  for (const auto& [name, t] : back.graph.initializers) have.insert(name);
  for (const auto& n : back.graph.nodes)
    for (const auto& o : n.outputs) have.insert(o);
  for (const auto& [now, orig] : read_tensor_origin(back))
    if (have.count(now)) have.insert(orig);
  std::vector<std::string> want;
  for (const auto& v : original.graph.inputs) want.push_back(v.name);
  for (const auto& n : original.graph.nodes)
    if (n.op_type != "Constant")
      for (const auto& o : n.outputs) want.push_back(o);
  for (const auto& w : want)
    if (!w.empty() && !have.count(w)) return fmt::format("tensor '{}' of the ONNX model has no counterpart in the MindIR round trip", w);
  return "";
}

// 0 pass, 1 fail, 3 skipped (fails as ONNX), 4 unsupported ("ops: A,B" in the message).
int run_case(const fs::path& dir, std::string& reason) {
  Model onnx_model;
  try {
    onnx_model = onnx_format::load_onnx((dir / "model.onnx").string());
    fix_data_defects((dir.parent_path().filename() / dir.filename()).generic_string(), onnx_model);
  } catch (const std::exception& e) {
    reason = std::string("fails as ONNX: ") + e.what();
    return 3;
  }
  std::string r = run_model_case(dir, onnx_model);
  if (!r.empty()) {
    reason = "fails as ONNX: " + r;
    return 3;
  }
  std::string bytes;
  try {
    bytes = mindir::export_mindir_bytes(onnx_model);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Unsupported) {
      reason = std::string("writer error: ") + e.what();
      return 1;
    }
    std::string ops;
    for (const auto& op : mindir::mindir_unsupported_ops(onnx_model)) ops += (ops.empty() ? "" : ",") + op;
    reason = "ops: " + ops + " | " + e.what();
    return 4;
  }
  Model back;
  try {
    back = mindir::import_mindir_bytes(bytes, (dir / "model.mindir").string());
  } catch (const std::exception& e) {
    reason = std::string("reader error: ") + e.what();
    return 1;
  }
  reason = lost_tensor_name(onnx_model, back);
  if (reason.empty()) reason = run_model_case(dir, back);
  return reason.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "missing value for " << a << "\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data") o.data = next();
    else if (a == "--suites") o.suites = split(next(), ',');
    else if (a == "--filter") o.filter = next();
    else if (a == "--expected-failures") o.expected_failures = next();
    else if (a == "--jobs") o.jobs = std::stoi(next());
    else if (a == "--timeout") o.timeout_s = std::stoi(next());
    else if (a == "--verbose") o.verbose = true;
    else {
      std::cerr << "usage: ms_mindir_roundtrip --data DIR --suites a,b [--filter REGEX] [--expected-failures FILE] "
                   "[--jobs N] [--timeout S]\n";
      return 2;
    }
  }
  if (o.data.empty() || o.suites.empty()) {
    std::cerr << "ms_mindir_roundtrip: --data and --suites are required\n";
    return 2;
  }
  std::set<std::string> expected_fail;
  if (!o.expected_failures.empty()) {
    std::ifstream f(o.expected_failures);
    std::string line;
    while (std::getline(f, line)) {
      auto hash = line.find('#');
      if (hash != std::string::npos) line = line.substr(0, hash);
      line.erase(line.find_last_not_of(" \t\r") + 1);
      line.erase(0, line.find_first_not_of(" \t"));
      if (!line.empty()) expected_fail.insert(line);
    }
  }
  std::regex filter(o.filter);
  std::vector<std::pair<std::string, fs::path>> cases;
  for (const auto& suite : o.suites) {
    fs::path dir = fs::path(o.data) / suite;
    if (!fs::is_directory(dir)) {
      std::cerr << "ms_mindir_roundtrip: no suite directory " << dir << "\n";
      return 2;
    }
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      std::string name = d.filename().string();
      if (std::regex_search(name, filter)) cases.emplace_back(suite + "/" + name, d);
    }
  }

  // An unsupported case is expected when every op the writer refused is listed.
  auto unsupported_ok = [&](const CaseResult& r) {
    if (r.code != 4) return false;
    auto bar = r.reason.find(" | ");
    std::string ops = r.reason.substr(5, bar == std::string::npos ? std::string::npos : bar - 5);  // after "ops: "
    if (ops.empty()) return false;
    for (const auto& op : split(ops, ','))
      if (!expected_fail.count(op)) return false;
    return true;
  };
  auto results = run_forked(cases, o.jobs, o.timeout_s, run_case, [&](const CaseResult& res) {
    bool xfail = expected_fail.count(res.name) > 0 || unsupported_ok(res);
    const char* tag = res.pass ? "PASS " : res.code == 3 ? "SKIP " : res.code == 4 ? (xfail ? "UNSUPPORTED " : "FAIL ") : (xfail ? "XFAIL " : "FAIL ");
    if (o.verbose || !res.pass || xfail)
      std::cout << tag << res.name << (res.reason.empty() ? "" : ": " + res.reason) << "\n" << std::flush;
  });

  int passed = 0, failed = 0, xfailed = 0, skipped = 0, unsupported = 0;
  std::vector<std::string> unexpected, newly_passing;
  for (const auto& r : results) {
    bool xfail = expected_fail.count(r.name) > 0;
    if (r.code == 3) {
      ++skipped;
    } else if (r.code == 4 && unsupported_ok(r)) {
      ++unsupported;
    } else if (r.pass) {
      ++passed;
      if (xfail) newly_passing.push_back(r.name);
    } else if (xfail) {
      ++xfailed;
    } else {
      ++failed;
      unexpected.push_back(r.name);
    }
  }
  std::sort(unexpected.begin(), unexpected.end());
  std::sort(newly_passing.begin(), newly_passing.end());
  for (const auto& n : newly_passing) std::cout << "NEWLY PASSING (remove from the expected failures): " << n << "\n";
  for (const auto& n : unexpected) std::cout << "UNEXPECTED FAILURE: " << n << "\n";
  std::cout << fmt::format("MindIR round trip of the ONNX backend suite: {} cases, {} passed, {} skipped (fail as ONNX), "
                           "{} refused for the listed ops, {} expected failures, {} unexpected failures\n",
                           results.size(), passed, skipped, unsupported, xfailed, failed);
  return failed == 0 ? 0 : 1;
}
