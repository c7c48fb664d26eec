// ms model_check: structural and deployability check of a model (src/check, docs/diagnostics.md).
// Exit: 0 no error-severity finding, 1 errors found, 2 bad usage or a file that cannot be read,
// 3 a model feature the importer does not support (MC-FILE-008).
#include <iostream>

#include "check/check.h"
#include "cli/cli_util.h"

namespace ms::cli {

namespace {

// "a:1,3,224,224;b:1,16" (also "a:[1,3,224,224]") -> {a: [1,3,224,224], b: [1,16]}.
std::map<std::string, std::vector<int64_t>> parse_input_shapes(const std::string& s) {
  std::map<std::string, std::vector<int64_t>> r;
  for (const auto& item : split_list(s, ';')) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0)
      fail("--inputShape entry '{}' must look like name:1,3,224,224", item);
    std::string name = item.substr(0, colon), dims = item.substr(colon + 1);
    std::string clean;
    for (char c : dims)
      if (c != '[' && c != ']' && c != ' ') clean += c;
    std::vector<int64_t> v;
    for (const auto& d : split_list(clean, ',')) {
      try {
        size_t used = 0;
        long long x = std::stoll(d, &used);
        if (used != d.size() || x < 0) throw std::invalid_argument(d);
        v.push_back(x);
      } catch (const std::exception&) {
        fail("--inputShape: '{}' is not a dimension in '{}'", d, item);
      }
    }
    r[name] = std::move(v);
  }
  return r;
}

}  // namespace

int cmd_model_check(const Args& args) {
  CLI::App app("Structural and deployability check: every finding names the rule (docs/diagnostics.md), the node "
               "and the fix. Exit 0: no errors, 1: errors found, 2: unreadable file or bad usage, 3: unsupported model "
               "feature.",
               "model_check");
  std::string model_file, target = "cpu", format = "text", input_shape;
  int check_model = 1;
  app.add_option("--checkModel", check_model, "1 = run the check (the MindSpore Lite converter's flag)");
  app.add_option("--modelFile", model_file, "model file (.onnx, .mindir)")->required();
  app.add_option("--target", target, "cpu (this runtime), mindir (MindSpore primitives), ascend or gpu")
      ->check(CLI::IsMember({"cpu", "mindir", "ascend", "gpu", "CPU", "MINDIR", "ASCEND", "GPU"}));
  app.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--inputShape", input_shape, "check with these input shapes: \"a:1,3,224,224;b:1,16\"");
  return run_command(app, args, [&] {
    if (check_model != 1) fail("--checkModel must be 1");
    check::CheckOptions opts;
    opts.target = check::parse_target(target);
    if (!input_shape.empty()) opts.input_shapes = parse_input_shapes(input_shape);
    check::CheckReport report = check::check_file(model_file, opts);
    std::cout << (format == "json" ? check::format_json(report) : check::format_text(report));
    std::cout.flush();
    return report.exit_code();
  });
}

}  // namespace ms::cli
