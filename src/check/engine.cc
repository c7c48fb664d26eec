// The rule engine: catalogue, context, the order the rule families run in, and output formats.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <nlohmann/json.hpp>

#include "check/check.h"

namespace ms::check {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    default: return "info";
  }
}

const std::vector<RuleInfo>& rule_catalogue() {
  using S = Severity;
  static const std::vector<RuleInfo> rules = {
      // 1. file integrity
      {"MC-FILE-001", S::Error, "file cannot be read", "check the path and permissions; the file must be a non-empty model file"},
      {"MC-FILE-002", S::Error, "file is truncated", "the file ends in the middle of a record: copy or download it again (compare the size with the original)"},
      {"MC-FILE-003", S::Error, "not a model file", "the file is not a model of the expected format: check the extension and pass the right file (.onnx, .mindir)"},
      {"MC-FILE-004", S::Error, "external data file missing", "copy the external data file next to the model (same relative path as in the model) or re-export with the weights embedded"},
      {"MC-FILE-005", S::Error, "external data shorter than declared", "the external data file is truncated or belongs to another export: copy it again together with the model"},
      {"MC-FILE-006", S::Error, "weights stripped", "the model declares weights that are not in the file: re-export with the weights (e.g. torch.onnx.export without stripping, keep_initializers_as_inputs=False)"},
      {"MC-FILE-007", S::Error, "tensor data does not match its shape", "the stored bytes and the declared shape/dtype disagree: re-export the model"},
      {"MC-FILE-008", S::Error, "unsupported model feature", "this tool cannot import the file's format or a feature the model uses yet (the message names it): export to ONNX / re-export without the feature (exit code 3)"},
      // 2. graph structure
      {"MC-GRAPH-001", S::Error, "input references nothing", "the node reads a value that no node, input or initializer defines: connect it to the right producer or add the missing initializer"},
      {"MC-GRAPH-002", S::Error, "graph output never produced", "produce the output with a node (or remove it from the graph outputs)"},
      {"MC-GRAPH-003", S::Error, "value defined more than once", "every value name must be produced exactly once: rename one of the producers' outputs"},
      {"MC-GRAPH-004", S::Error, "duplicate node name", "give every node a unique name so that tools and error messages can refer to it"},
      {"MC-GRAPH-005", S::Error, "cycle", "a node depends on its own output: break the cycle (recurrence belongs in a Loop/Scan body)"},
      {"MC-GRAPH-006", S::Error, "nodes not in topological order", "sort the nodes so that every value is produced before it is used (onnx.utils or re-export)"},
      {"MC-GRAPH-007", S::Error, "dead node", "the node's outputs reach no graph output: remove it (ms optimize removes dead nodes) or add its output to the graph outputs"},
      {"MC-GRAPH-008", S::Error, "isolated subgraph", "a group of nodes is disconnected from the graph's inputs and outputs: remove it or connect it"},
      {"MC-GRAPH-009", S::Error, "unused initializer", "remove the initializer (it only adds to the file size)"},
      {"MC-GRAPH-010", S::Error, "unused graph input", "remove the input, or connect it to the nodes that should read it"},
      {"MC-GRAPH-011", S::Error, "empty graph", "the graph has no nodes or no outputs: export the model again from the framework"},
      // 3. operator schema
      {"MC-OP-001", S::Error, "unknown operator", "the operator is not an ONNX operator nor one of this project's: replace it with standard ops or a supported custom op"},
      {"MC-OP-002", S::Error, "unsupported opset", "export with a supported opset (7..max) or convert the model: the operator does not exist in the declared opset"},
      {"MC-OP-003", S::Error, "wrong number of inputs", "give the node the inputs its operator requires"},
      {"MC-OP-004", S::Error, "wrong number of outputs", "give the node the outputs its operator defines"},
      {"MC-OP-005", S::Error, "missing required attribute", "add the attribute to the node"},
      {"MC-OP-006", S::Error, "attribute of the wrong type", "store the attribute with the type the operator defines (e.g. ints, not floats)"},
      {"MC-OP-007", S::Warning, "unknown attribute", "the operator does not define this attribute: it is ignored; remove it or check its spelling"},
      {"MC-OP-008", S::Error, "attribute value out of range", "fix the attribute value (kernel/stride/dilation > 0, pads >= 0, group divides the channels, axis within the rank)"},
      {"MC-OP-009", S::Error, "weight shape inconsistent with the attributes", "the weight's shape does not fit the node's attributes and input: fix the weight or the attributes"},
      // 4. types and shapes
      {"MC-SHAPE-001", S::Error, "shape inference fails", "the node's input shapes do not fit its operator: fix the producer of the input or the node's attributes/constants"},
      {"MC-SHAPE-002", S::Warning, "shape target not static", "the shape operand is computed at run time: fix the input shapes (--inputShape) or fold the shape computation (ms optimize)"},
      {"MC-SHAPE-003", S::Warning, "shape inference incomplete with dynamic dims", "inference could not follow the dynamic dims through this node: give static input shapes with --inputShape to check it fully"},
      {"MC-SHAPE-004", S::Warning, "declared shape differs from the inferred one", "the shape stored in the model (value_info/outputs) disagrees with the computed one: re-run shape inference on export or fix the declaration"},
      {"MC-TYPE-001", S::Error, "input dtypes violate the operator's type constraints", "insert a Cast so that the inputs have the types the operator accepts (and equal types where it requires them)"},
      {"MC-TYPE-002", S::Error, "declared dtype differs from the produced one", "the dtype the model declares for this value is not what its producer makes: fix the declaration or add a Cast"},
      // 5. deployability
      {"MC-DEPLOY-001", S::Error, "Dropout in training mode", "export in inference mode (model.eval() / training=False) or remove the Dropout"},
      {"MC-DEPLOY-002", S::Error, "BatchNormalization in training mode", "export in inference mode (model.eval()): training_mode must be 0 and the running-stat outputs unused"},
      {"MC-DEPLOY-003", S::Error, "random operator", "the output changes from run to run: remove the random op or replace it with a constant before deploying"},
      {"MC-DEPLOY-004", S::Error, "training operator", "gradient/optimizer operators do not belong in a deployed model: export the inference graph only"},
      {"MC-DEPLOY-005", S::Warning, "dynamic input dims", "fix the shape at conversion with --inputShape \"name:1,3,224,224\" (dynamic dims cost speed or are refused by some targets)"},
      {"MC-DEPLOY-006", S::Error, "data-dependent output shape", "the output shape depends on the data: targets with static memory planning may refuse it; bound it (e.g. TopK with a constant K) or move it out of the model"},
      {"MC-DEPLOY-007", S::Error, "NaN or Inf in weights", "the weights are corrupt (diverged training or a bad conversion): re-export from a good checkpoint"},
      {"MC-DEPLOY-008", S::Error, "BatchNormalization variance < 0", "a variance cannot be negative: the weights are corrupt or in the wrong order (scale, B, mean, var)"},
      {"MC-DEPLOY-009", S::Error, "64-bit tensor where the target wants 32-bit", "cast to int32/float32 at export (int64 indices and shapes are converted by the target, float64 halves the speed or is refused)"},
      {"MC-DEPLOY-010", S::Warning, "name rejected by deployment runtimes", "rename the graph input/output to match [A-Za-z_][A-Za-z0-9_]* (ms convert/optimize --renameIO old=new)"},
      {"MC-DEPLOY-011", S::Error, "TensorFlow-style name:index", "rename the graph input/output without the ':<index>' suffix (ms convert --renameIO \"input:0=input_0\")"},
      // 6. target support
      {"MC-TARGET-001", S::Error, "operator not supported by the target", "replace the operator with supported ones, or pick another --target"},
  };
  return rules;
}

const RuleInfo& rule_info(const std::string& id) {
  for (const auto& r : rule_catalogue())
    if (id == r.id) return r;
  throw Error(ErrorCode::Internal, "model_check: unknown rule id " + id);
}

Target parse_target(const std::string& s) {
  std::string t = s;
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "cpu") return Target::Cpu;
  if (t == "mindir") return Target::MindIR;
  if (t == "ascend") return Target::Ascend;
  if (t == "gpu") return Target::Gpu;
  fail("unknown --target '{}': use cpu, mindir, ascend or gpu", s);
}

std::string_view target_name(Target t) {
  switch (t) {
    case Target::Cpu: return "cpu";
    case Target::MindIR: return "mindir";
    case Target::Ascend: return "ascend";
    default: return "gpu";
  }
}

std::string node_id(const Graph& g, size_t i) {
  const Node& n = g.nodes[i];
  return n.name.empty() ? "#" + std::to_string(i) : n.name;
}

std::string op_name(const Node& n) { return n.domain.empty() ? n.op_type : n.domain + "." + n.op_type; }

void Context::node_finding(const std::string& id, const Graph& g, size_t i, std::string message, std::string hint,
                           std::optional<Severity> sev) {
  const RuleInfo& r = rule_info(id);
  Finding f;
  f.rule = id;
  f.severity = sev.value_or(r.severity);
  f.node = node_id(g, i);
  f.op = op_name(g.nodes[i]);
  auto w = where.find(&g);
  f.message = std::move(message) + (w != where.end() ? w->second : "");
  f.hint = hint.empty() ? r.hint : std::move(hint);
  if (f.severity == Severity::Error) error_nodes.insert({&g, i});
  findings.push_back(std::move(f));
}

void Context::tensor_finding(const std::string& id, const std::string& tensor, std::string message, std::string hint,
                             std::optional<Severity> sev) {
  const RuleInfo& r = rule_info(id);
  Finding f;
  f.rule = id;
  f.severity = sev.value_or(r.severity);
  f.tensor = tensor;
  f.message = std::move(message);
  f.hint = hint.empty() ? r.hint : std::move(hint);
  findings.push_back(std::move(f));
}

bool Context::node_has_error(const Graph& g, size_t i) const { return error_nodes.count({&g, i}) > 0; }

int CheckReport::count(Severity s) const {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == s; }));
}

int CheckReport::exit_code() const {
  if (unsupported) return 3;
  if (unreadable) return 2;
  return count(Severity::Error) > 0 ? 1 : 0;
}

namespace {

void label_subgraphs(const Graph& g, const std::string& outer, std::map<const Graph*, std::string>& where) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (const auto& [k, a] : n.attrs) {
      auto visit = [&](const Graph& sg) {
        std::string w = fmt::format(" (in subgraph '{}' of node {}{})", k, node_id(g, i), outer);
        where[&sg] = w;
        label_subgraphs(sg, fmt::format(" in subgraph '{}' of node {}{}", k, node_id(g, i), outer), where);
      };
      if (a.g) visit(*a.g);
      for (const auto& sg : a.graphs)
        if (sg) visit(*sg);
    }
  }
}

}  // namespace

namespace {

ModelSummary summarize(const Model& model, const GraphInference& inf) {
  ModelSummary s;
  const Graph& g = model.graph;
  for (const auto& v : g.inputs)
    if (!g.initializers.count(v.name)) s.inputs.push_back({v.name, v.type.str()});
  for (const auto& v : g.outputs) {
    const TypeInfo* t = v.type.kind == TypeInfo::Kind::Unknown ? inf.type_of(g, v.name) : nullptr;
    s.outputs.push_back({v.name, (t ? *t : v.type).str()});
  }
  std::set<std::string> types;
  for_each_graph(g, [&](const Graph& sg) {
    for (const auto& n : sg.nodes) {
      ++s.nodes;
      types.insert(n.domain + "." + n.op_type);
    }
  });
  s.op_types = static_cast<int64_t>(types.size());
  return s;
}

}  // namespace

CheckReport check_model(const Model& model, const CheckOptions& opts) {
  CheckReport report;
  report.file = model.source_path;
  report.target = opts.target;
  GraphInferOptions io;
  io.input_shapes = opts.input_shapes;
  GraphInference inf = infer_graph(model, io);
  report.model = summarize(model, inf);
  Context ctx(model, opts, inf);
  label_subgraphs(model.graph, "", ctx.where);
  check_graph_structure(ctx);
  check_schema(ctx);
  check_types_shapes(ctx);
  check_deployability(ctx);
  check_target(ctx);
  report.findings = std::move(ctx.findings);
  report.target_summary = std::move(ctx.target_summary);
  return report;
}

CheckReport check_file(const std::string& path, const CheckOptions& opts) {
  std::vector<Finding> file_findings;
  bool unreadable = false, unsupported = false;
  std::optional<Model> model = load_checked(path, file_findings, unreadable, &unsupported);
  CheckReport report;
  if (model) {
    report = check_model(*model, opts);
  }
  report.file = path;
  report.target = opts.target;
  report.unreadable = unreadable;
  report.unsupported = unsupported;
  report.findings.insert(report.findings.begin(), file_findings.begin(), file_findings.end());
  return report;
}

namespace {

std::string subject(const Finding& f) {
  if (!f.node.empty()) return fmt::format("node {} ({})", f.node, f.op);
  if (!f.tensor.empty()) return fmt::format("'{}'", f.tensor);
  return "model";
}

}  // namespace

std::string format_text(const CheckReport& r) {
  std::string out = fmt::format("model_check: {} (target {})\n", r.file, target_name(r.target));
  if (r.model) {
    auto list = [](const std::vector<ModelSummary::IO>& v) {
      std::string s;
      for (const auto& io : v) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", io.name, io.type);
      return s.empty() ? std::string("(none)") : s;
    };
    out += fmt::format("  model:   {}\n  inputs:  {}\n  outputs: {}\n  ops:     {} nodes, {} op types\n", r.file,
                       list(r.model->inputs), list(r.model->outputs), r.model->nodes, r.model->op_types);
  }
  const std::pair<Severity, const char*> groups[] = {
      {Severity::Error, "errors"}, {Severity::Warning, "warnings"}, {Severity::Info, "info"}};
  for (const auto& [sev, title] : groups) {
    int n = r.count(sev);
    if (!n) continue;
    out += fmt::format("\n{} ({}):\n", title, n);
    for (const auto& f : r.findings) {
      if (f.severity != sev) continue;
      out += fmt::format("  {} {} {}: {}", severity_name(f.severity), f.rule, subject(f), f.message);
      if (!f.hint.empty()) out += fmt::format(" -- hint: {}", f.hint);
      out += "\n";
    }
  }
  out += "\n";
  if (r.target_summary) {
    std::string list;
    for (size_t i = 0; i < r.target_summary->unsupported.size(); ++i)
      list += (i ? ", " : "") + r.target_summary->unsupported[i];
    out += fmt::format("Supported ops: {}/{}, Unsupported ops: [{}]\n", r.target_summary->supported,
                       r.target_summary->total, list);
  }
  int e = r.count(Severity::Error), w = r.count(Severity::Warning), i = r.count(Severity::Info);
  out += fmt::format("summary: {} error{}, {} warning{}, {} info -> {}\n", e, e == 1 ? "" : "s", w, w == 1 ? "" : "s",
                     i, r.unsupported ? "UNSUPPORTED" : r.unreadable ? "UNREADABLE" : (e ? "FAILED" : "PASSED"));
  return out;
}

std::string format_json(const CheckReport& r) {
  nlohmann::json j;
  j["file"] = r.file;
  j["target"] = std::string(target_name(r.target));
  if (r.model) {
    auto list = [](const std::vector<ModelSummary::IO>& v) {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& io : v) a.push_back({{"name", io.name}, {"type", io.type}});
      return a;
    };
    j["model"] = {{"inputs", list(r.model->inputs)}, {"outputs", list(r.model->outputs)}, {"nodes", r.model->nodes},
                  {"op_types", r.model->op_types}};
  }
  j["findings"] = nlohmann::json::array();
  for (const auto& f : r.findings) {
    nlohmann::json o;
    o["rule"] = f.rule;
    o["severity"] = std::string(severity_name(f.severity));
    o["node"] = f.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.node);
    o["op"] = f.op.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.op);
    o["tensor"] = f.tensor.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.tensor);
    o["message"] = f.message;
    o["hint"] = f.hint;
    j["findings"].push_back(std::move(o));
  }
  if (r.target_summary) {
    j["supported_ops"] = r.target_summary->supported;
    j["total_ops"] = r.target_summary->total;
    j["unsupported_ops"] = r.target_summary->unsupported;
  }
  j["summary"] = {{"errors", r.count(Severity::Error)},
                  {"warnings", r.count(Severity::Warning)},
                  {"info", r.count(Severity::Info)},
                  {"exit_code", r.exit_code()}};
  return j.dump(2) + "\n";
}

}  // namespace ms::check
