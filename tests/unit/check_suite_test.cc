// False-positive guard for model_check: every ONNX backend-suite model that the runtime passes
// (all cases not listed in tests/conformance/expected_failures.txt) is a valid model, so the
// structural, schema, type and shape rules must report no error on it. Training-residue, random-op,
// training-op and target rules are excepted (the suite tests Dropout/BatchNorm training modes and
// random ops on purpose).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "check/check.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

std::set<std::string> expected_failures() {
  std::set<std::string> r;
  std::ifstream f(std::string(MS_SOURCE_DIR) + "/tests/conformance/expected_failures.txt");
  std::string line;
  while (std::getline(f, line)) {
    auto end = line.find_first_of(" \t#");
    std::string name = line.substr(0, end);
    if (!name.empty()) r.insert(name);
  }
  return r;
}

bool guarded_rule(const std::string& rule) {
  for (const char* p : {"MC-FILE-", "MC-GRAPH-", "MC-OP-", "MC-SHAPE-", "MC-TYPE-"})
    if (rule.rfind(p, 0) == 0) return true;
  return false;
}

TEST(CheckSuite, BackendModelsHaveNoStructuralErrors) {
  const fs::path data = MS_ONNX_TESTDATA;
  if (!fs::exists(data)) GTEST_SKIP() << "no ONNX backend test data at " << data;
  const auto skip = expected_failures();
  int checked = 0;
  std::vector<std::string> offenders;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    if (!fs::exists(data / suite)) continue;
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(data / suite))
      if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    for (const auto& c : cases) {
      std::string name = std::string(suite) + "/" + c.filename().string();
      if (skip.count(name)) continue;
      check::CheckReport r = check::check_file((c / "model.onnx").string(), {});
      ++checked;
      // The *_expanded cases are function bodies inlined by the ONNX test generator: they keep dead
      // nodes (LayerNormalization's unused Size) and unused inputs (CastLike's `like`) by
      // construction, which model_check rightly reports (MC-GRAPH-007..010 are errors).
      const bool expanded = name.size() > 9 && name.compare(name.size() - 9, 9, "_expanded") == 0;
      auto dead_code_rule = [](const std::string& rule) {
        return rule == "MC-GRAPH-007" || rule == "MC-GRAPH-008" || rule == "MC-GRAPH-009" || rule == "MC-GRAPH-010";
      };
      for (const auto& f : r.findings)
        if (f.severity == check::Severity::Error && guarded_rule(f.rule) && !(expanded && dead_code_rule(f.rule)))
          offenders.push_back(name + ": " + f.rule + " " + (f.node.empty() ? f.tensor : f.node + " (" + f.op + ")") +
                              ": " + f.message);
    }
  }
  EXPECT_GT(checked, 900);
  std::string all;
  for (const auto& o : offenders) all += o + "\n";
  EXPECT_TRUE(offenders.empty()) << offenders.size() << " false positive(s) in " << checked << " models:\n" << all;
}

}  // namespace
}  // namespace ms
