// Runs the ONNX backend test cases (model.onnx + test_data_set_*/input_*.pb, output_*.pb) through
// the importer and the reference runtime and compares with the expected outputs.
// Each case runs in a forked child so that one crashing kernel cannot hide the others' results.
// Exit status: 0 when every failure is listed in --expected-failures, 1 otherwise.
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
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "case_util.h"
#include "data_defects.h"
#include "formats/io/tensor_file.h"
#include "formats/model_io.h"
#include "formats/onnx/onnx_importer.h"
#include "formats/onnx/opset_upgrade.h"
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
  std::string cli;  // path of `ms`: run each case through `ms run` and compare the written .npy files
  // Only the cases below opset 13, read without ONNX's version converter and upgraded by the
  // in-house upgrade (src/formats/onnx/opset_upgrade.h) before they run.
  bool upgrade13 = false;
};

// "suite/test_name" of a case directory.
std::string case_name(const fs::path& dir) {
  return (dir.parent_path().filename() / dir.filename()).generic_string();
}

// Runs one case; returns "" on success or the reason for failure.
std::string run_case(const fs::path& dir, const std::string& name) {
  try {
    Model m = onnx_format::load_onnx((dir / "model.onnx").string());
    fix_data_defects(name, m);
    auto model = std::make_shared<const Model>(std::move(m));
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

// The model's graph output types, read only when needed: bfloat16 is stored as uint16 bits both in
// ONNX's test data and in the .npy files `ms run` writes, and only the model says which is which.
std::vector<TypeInfo> output_types(const fs::path& dir) {
  std::vector<TypeInfo> types;
  for (const auto& o : onnx_format::load_onnx((dir / "model.onnx").string()).graph.outputs) types.push_back(o.type);
  return types;
}

// The acceptance path: `ms run` writes output_<i>.npy, compared with output_<i>.pb as stored.
std::string run_case_cli(const fs::path& dir, const std::string& ms) {
  try {
    std::optional<std::vector<TypeInfo>> out_types;
    auto out_dir = fs::temp_directory_path() / fmt::format("ms_conformance_{}", getpid());
    for (const auto& set : fs::directory_iterator(dir)) {
      if (!set.is_directory() || set.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
      fs::remove_all(out_dir);
      std::string files;
      for (const auto& f : numbered_files(set.path(), "input_")) files += (files.empty() ? "" : ",") + f.string();
      std::string err_file = out_dir.string() + ".err";
      std::string cmd = fmt::format("'{}' run --modelFile '{}' {} --outputDir '{}' >/dev/null 2>'{}'", ms,
                                    (dir / "model.onnx").string(), files.empty() ? "" : "--inDataFile " + files,
                                    out_dir.string(), err_file);
      fs::create_directories(out_dir);
      int status = std::system(cmd.c_str());
      if (status != 0) {
        std::ifstream err(err_file);
        std::string msg((std::istreambuf_iterator<char>(err)), {});
        return fmt::format("ms run exited with {}: {}", WEXITSTATUS(status), msg);
      }
      auto expected = numbered_files(set.path(), "output_");
      for (size_t i = 0; i < expected.size(); ++i) {
        auto npy = out_dir / fmt::format("output_{}.npy", i);
        if (!fs::exists(npy)) return fmt::format("ms run wrote no {}", npy.filename().string());
        Value want = io::read_pb(expected[i].string());
        Value got(io::read_npy(npy.string()));
        if (want.is_tensor() && want.tensor.dtype() == DType::UInt16 && got.is_tensor()) {
          if (!out_types) out_types = output_types(dir);
          if (i < out_types->size()) {
            want = Value(io::adapt_bfloat16_bits(want.tensor, (*out_types)[i]));
            got = Value(io::adapt_bfloat16_bits(got.tensor, (*out_types)[i]));
          }
        }
        std::string r = compare_value(got, want, npy.filename().string());
        if (!r.empty()) return r;
      }
    }
    fs::remove_all(out_dir);
    fs::remove(out_dir.string() + ".err");
    return "";
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

// Opset of a case's model as stored (no upgrade); 0 when it cannot be read.
int64_t stored_opset(const fs::path& dir) {
  try {
    onnx_format::ImportOptions io;
    io.upgrade_opset = false;
    return onnx_format::load_onnx((dir / "model.onnx").string(), io).opset();
  } catch (const std::exception&) {
    return 0;
  }
}

// The case's model changed by `edit` and written as ONNX into a folder that also links the case's
// test data; then the case runs from there like any other (in process when `ms` is empty).
std::string run_case_rewritten(const fs::path& dir, const std::string& ms, const std::string& name,
                               const std::function<void(Model&)>& edit) {
  const auto tmp = fs::temp_directory_path() / fmt::format("ms_rewritten_{}", getpid());
  std::string r;
  try {
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    onnx_format::ImportOptions io;
    io.upgrade_opset = false;
    Model m = onnx_format::load_onnx((dir / "model.onnx").string(), io);
    edit(m);
    save_model(m, (tmp / "model.onnx").string(), ModelFormat::Onnx);
    for (const auto& set : fs::directory_iterator(dir))
      if (set.is_directory()) fs::create_directory_symlink(set.path(), tmp / set.path().filename());
    r = ms.empty() ? run_case(tmp, name) : run_case_cli(tmp, ms);
  } catch (const Error& e) {
    r = std::string(e.code() == ErrorCode::Unsupported ? "unsupported: " : "error: ") + e.what();
  } catch (const std::exception& e) {
    r = std::string("exception: ") + e.what();
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return r;
}

// The case's model upgraded to opset 13 in house (cases stored below opset 13).
std::string run_case_upgraded(const fs::path& dir, const std::string& ms) {
  const std::string name = case_name(dir);
  return run_case_rewritten(dir, ms, name, [&](Model& m) {
    fix_data_defects(name, m);
    onnx_format::upgrade_opset_to_13(m);
  });
}

// Through `ms run`; a case with a known data defect runs from a corrected copy of its model.
std::string run_case_cli_fixed(const fs::path& dir, const std::string& ms) {
  const std::string name = case_name(dir);
  if (!has_data_defect(name)) return run_case_cli(dir, ms);
  return run_case_rewritten(dir, ms, name, [&](Model& m) { fix_data_defects(name, m); });
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
    else if (a == "--cli") o.cli = next();
    else if (a == "--upgrade13") o.upgrade13 = true;
    else {
      std::cerr << "usage: ms_conformance --data DIR --suites a,b [--filter REGEX] [--expected-failures FILE] "
                   "[--jobs N] [--timeout S] [--cli MS] [--upgrade13]\n";
      return 2;
    }
  }
  if (o.data.empty() || o.suites.empty()) {
    std::cerr << "ms_conformance: --data and --suites are required\n";
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
      std::cerr << "ms_conformance: no suite directory " << dir << "\n";
      return 2;
    }
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      std::string name = d.filename().string();
      if (!std::regex_search(name, filter)) continue;
      if (o.upgrade13) {
        const int64_t v = stored_opset(d);
        if (v <= 0 || v >= 13) continue;
      }
      cases.emplace_back(suite + "/" + name, d);
    }
  }

  auto results = run_forked(
      cases, o.jobs, o.timeout_s,
      [&](const fs::path& dir, std::string& reason) {
        reason = o.upgrade13 ? run_case_upgraded(dir, o.cli) : o.cli.empty() ? run_case(dir, case_name(dir)) : run_case_cli_fixed(dir, o.cli);
        return reason.empty() ? 0 : 1;
      },
      [&](const CaseResult& res) {
        bool xfail = expected_fail.count(res.name) > 0;
        if (o.verbose || !res.pass || xfail)
          std::cout << (res.pass ? "PASS " : (xfail ? "XFAIL " : "FAIL ")) << res.name
                    << (res.reason.empty() ? "" : ": " + res.reason) << "\n"
                    << std::flush;
      });

  int passed = 0, failed = 0, xfailed = 0;
  std::vector<std::string> unexpected, newly_passing;
  for (const auto& r : results) {
    bool xfail = expected_fail.count(r.name) > 0;
    if (r.pass) {
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
  std::cout << fmt::format("ONNX backend suite: {} cases, {} passed, {} expected failures, {} unexpected failures\n",
                           results.size(), passed, xfailed, failed);
  return failed == 0 ? 0 : 1;
}
