// ms model_check: structural and deployability check of a model (src/check, docs/diagnostics.md).
// Exit: 0 no error-severity finding, 1 errors found, 2 bad usage or a file that cannot be read,
// 3 a model feature the importer does not support (MC-FILE-008).
#include <iostream>

#include "check/check.h"
#include "cli/cli_util.h"
#include "cli/convert_common.h"

namespace ms::cli {

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
  app.add_option("--inputShape", input_shape, "check with these input shapes: \"a:1,3,224,224;b:1,16\" (name:[] for a scalar)");
  return run_command(app, args, [&] {
    if (check_model != 1) fail("--checkModel must be 1");
    check::CheckOptions opts;
    opts.target = check::parse_target(target);
    if (!input_shape.empty()) opts.input_shapes = input_shape_map(input_shape);
    check::CheckReport report = check::check_file(model_file, opts);
    std::cout << (format == "json" ? check::format_json(report) : check::format_text(report));
    std::cout.flush();
    return report.exit_code();
  });
}

}  // namespace ms::cli
