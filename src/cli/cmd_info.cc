// ms info: inputs, outputs, opsets, op histogram, parameter count and bytes (initializers and Constant-node
// tensors), doc_string and metadata (ONNX metadata_props, MindIR user_info); text or --json.
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

// Elements and bytes of the tensor a Constant node holds (value, value_float(s), value_int(s),
// value_string(s)); 0 for any other node.
std::pair<int64_t, int64_t> constant_size(const Node& n) {
  if (!n.domain.empty() || n.op_type != "Constant") return {0, 0};
  for (const auto& [key, a] : n.attrs) {
    if (a.type == AttrType::Tensor) return {a.t.numel(), a.t.dtype() == DType::String ? 0 : static_cast<int64_t>(a.t.nbytes())};
    if (a.type == AttrType::Floats) return {static_cast<int64_t>(a.floats.size()), 4 * static_cast<int64_t>(a.floats.size())};
    if (a.type == AttrType::Ints) return {static_cast<int64_t>(a.ints.size()), 8 * static_cast<int64_t>(a.ints.size())};
    if (a.type == AttrType::Strings) return {static_cast<int64_t>(a.strings.size()), 0};
    if (a.type == AttrType::Float) return {1, 4};
    if (a.type == AttrType::Int) return {1, 8};
    if (a.type == AttrType::String) return {1, 0};
  }
  return {0, 0};
}

// Text form of a metadata value: long ones (ms.tensor_origin maps) are cut, --json has them whole.
std::string shortened(const std::string& v) {
  constexpr size_t kMax = 160;
  if (v.size() <= kMax) return v;
  return v.substr(0, kMax) + fmt::format("... ({} chars; --json has it all)", v.size());
}

// Multi-line text indented under its heading.
std::string indented(const std::string& text, const std::string& pad) {
  std::string out = pad;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
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
    // Parameters: initializers and the tensors Constant nodes hold (PaddleOCR's exports keep their
    // weights in Constant nodes), in the main graph and its subgraphs.
    int64_t params = 0, bytes = 0, initializers = 0, constants = 0;
    for_each_graph(g, [&](const Graph& sg) {
      for (const auto& [n, t] : sg.initializers) {
        params += t.numel();
        bytes += static_cast<int64_t>(t.dtype() == DType::String ? 0 : t.nbytes());
        ++initializers;
      }
      for (const auto& n : sg.nodes) {
        if (!n.domain.empty() || n.op_type != "Constant") continue;
        auto [elems, nbytes] = constant_size(n);
        params += elems;
        bytes += nbytes;
        ++constants;
      }
    });
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
      j["initializers"] = initializers;
      j["constant_nodes"] = constants;
      j["doc_string"] = m.doc;
      j["metadata"] = nlohmann::json::object();
      for (const auto& [k, v] : m.metadata) j["metadata"][k] = v;
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
    if (!m.doc.empty()) std::cout << "doc_string:\n" << indented(m.doc, "  ") << "\n";
    if (!m.metadata.empty()) {
      std::cout << "metadata:\n";
      for (const auto& [k, v] : m.metadata) std::cout << fmt::format("  {}: {}\n", k, shortened(v));
    }
    std::cout << fmt::format("nodes: {}\nparameters: {} ({} bytes in {} initializers and {} Constant nodes)\nops:\n", nodes,
                             params, bytes, initializers, constants);
    std::vector<std::pair<int64_t, std::string>> sorted;
    for (const auto& [op, c] : hist) sorted.emplace_back(-c, op);
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [c, op] : sorted) std::cout << fmt::format("  {:<28} {}\n", op, -c);
    return 0;
  });
}

}  // namespace ms::cli
