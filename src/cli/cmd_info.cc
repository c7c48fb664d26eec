// ms info: inputs, outputs, opsets, op histogram, parameter count and bytes (text or --json).
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

#include "cli/cli_util.h"
#include "formats/model_io.h"

namespace ms::cli {

namespace {

void count_ops(const Graph& g, std::map<std::string, int64_t>& hist, int64_t& nodes) {
  for (const auto& n : g.nodes) {
    ++nodes;
    ++hist[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
    for (const auto& [k, a] : n.attrs) {
      if (a.g) count_ops(*a.g, hist, nodes);
      for (const auto& sg : a.graphs) count_ops(*sg, hist, nodes);
    }
  }
}

}  // namespace

int cmd_info(const Args& args) {
  CLI::App app("Inputs, outputs, opsets, op histogram and parameters of a model", "info");
  std::string model_file;
  bool json = false;
  app.add_option("--modelFile", model_file, "model file")->required();
  app.add_flag("--json", json, "print one JSON object");
  return run_command(app, args, [&] {
    Model m = load_model(model_file);
    const Graph& g = m.graph;
    std::map<std::string, int64_t> hist;
    int64_t nodes = 0;
    count_ops(g, hist, nodes);
    int64_t params = 0, bytes = 0;
    for (const auto& [n, t] : g.initializers) {
      params += t.numel();
      bytes += static_cast<int64_t>(t.dtype() == DType::String ? 0 : t.nbytes());
    }
    std::vector<const ValueInfo*> real_inputs;
    for (const auto& v : g.inputs)
      if (!g.initializers.count(v.name)) real_inputs.push_back(&v);
    if (json) {
      nlohmann::json j;
      j["file"] = model_file;
      j["producer"] = m.producer_name + (m.producer_version.empty() ? "" : " " + m.producer_version);
      j["ir_version"] = m.ir_version;
      for (const auto& [d, v] : m.opsets) j["opsets"][d.empty() ? "ai.onnx" : d] = v;
      auto io = [](const ValueInfo& v) {
        nlohmann::json e;
        e["name"] = v.name;
        e["type"] = v.type.str();
        if (v.type.kind == TypeInfo::Kind::Tensor) {
          e["dtype"] = std::string(dtype_name(v.type.dtype));
          if (v.type.shape) {
            e["shape"] = nlohmann::json::array();
            for (const auto& d : *v.type.shape)
              e["shape"].push_back(d.is_static() ? nlohmann::json(d.value) : nlohmann::json(d.param.empty() ? "?" : d.param));
          }
        }
        return e;
      };
      j["inputs"] = nlohmann::json::array();
      for (const auto* v : real_inputs) j["inputs"].push_back(io(*v));
      j["outputs"] = nlohmann::json::array();
      for (const auto& v : g.outputs) j["outputs"].push_back(io(v));
      j["nodes"] = nodes;
      j["op_histogram"] = hist;
      j["parameters"] = params;
      j["parameter_bytes"] = bytes;
      j["initializers"] = g.initializers.size();
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("model:      {}\n", model_file);
    std::cout << fmt::format("producer:   {} {}\n", m.producer_name, m.producer_version);
    std::cout << fmt::format("ir_version: {}\nopsets:    ", m.ir_version);
    for (const auto& [d, v] : m.opsets) std::cout << fmt::format(" {}={}", d.empty() ? "ai.onnx" : d, v);
    std::cout << "\ninputs:\n";
    for (const auto* v : real_inputs) std::cout << fmt::format("  {}: {}\n", v->name, v->type.str());
    std::cout << "outputs:\n";
    for (const auto& v : g.outputs) std::cout << fmt::format("  {}: {}\n", v.name, v.type.str());
    std::cout << fmt::format("nodes: {}\nparameters: {} ({} bytes in {} initializers)\nops:\n", nodes, params, bytes,
                             g.initializers.size());
    std::vector<std::pair<int64_t, std::string>> sorted;
    for (const auto& [op, c] : hist) sorted.emplace_back(-c, op);
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [c, op] : sorted) std::cout << fmt::format("  {:<28} {}\n", op, -c);
    return 0;
  });
}

}  // namespace ms::cli
