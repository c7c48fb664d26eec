// ms ops: the operators the runtime implements (domain, type, input/output arity, attributes).
#include <nlohmann/json.hpp>

#include <iostream>

#include "cli/cli_util.h"
#include "ops/op.h"

namespace ms::cli {

int cmd_ops(const Args& args) {
  CLI::App app("List the supported operators", "ops");
  bool json = false;
  app.add_flag("--json", json, "print a JSON array");
  return run_command(app, args, [&] {
    auto ops = OpRegistry::global().all();
    if (json) {
      nlohmann::json j = nlohmann::json::array();
      for (const OpDef* d : ops) {
        nlohmann::json e;
        e["domain"] = d->domain.empty() ? "ai.onnx" : d->domain;
        e["op_type"] = d->op_type;
        e["attributes"] = nlohmann::json::array();
        for (const auto& a : d->attrs) e["attributes"].push_back(a.name);
        j.push_back(e);
      }
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    for (const OpDef* d : ops) std::cout << (d->domain.empty() ? "" : d->domain + ".") << d->op_type << "\n";
    std::cout << ops.size() << " operators\n";
    return 0;
  });
}

}  // namespace ms::cli
