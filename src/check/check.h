// model_check: structural and deployability checks with stable rule ids (docs/diagnostics.md).
//
// A check is a list of Findings (rule id, severity, node/op or tensor, message, hint). The engine
// (engine.cc) reads the file (raw integrity checks first, file_rules.cc), imports it, runs graph
// inference once (ops/infer_graph.h) and then every rule family: graph_rules.cc (structure),
// schema_rules.cc (operator schema and attribute ranges), shape_rules.cc (types and shapes),
// deploy_rules.cc (deployability) and target_rules.cc (operators a target supports).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "ops/infer_graph.h"

namespace ms::check {

enum class Severity { Error, Warning, Info };
std::string_view severity_name(Severity s);

struct Finding {
  std::string rule;  // "MC-GRAPH-001"
  Severity severity = Severity::Error;
  std::string node;    // node name ("#12" for unnamed nodes), empty when the finding is about a tensor/file
  std::string op;      // op type of the node ("domain.Op" outside the default domain)
  std::string tensor;  // tensor / value / file the finding concerns, when not a node
  std::string message;
  std::string hint;
};

// The catalogue: every rule id with its default severity, title and fix (docs/diagnostics.md).
struct RuleInfo {
  const char* id;
  Severity severity;
  const char* title;
  const char* hint;
};
const std::vector<RuleInfo>& rule_catalogue();
const RuleInfo& rule_info(const std::string& id);  // error on an unknown id (a bug)

enum class Target { Cpu, MindIR, Ascend, Gpu };
Target parse_target(const std::string& s);  // "cpu", "mindir", "ascend", "gpu"; error otherwise
std::string_view target_name(Target t);

struct CheckOptions {
  Target target = Target::Cpu;
  std::map<std::string, std::vector<int64_t>> input_shapes;  // --inputShape
};

struct TargetSummary {
  int supported = 0;
  int total = 0;
  std::vector<std::string> unsupported;  // op types
};

// What model_check's text output opens with: the model's interface and size.
struct ModelSummary {
  struct IO {
    std::string name;
    std::string type;  // "float32[?,3,224,224]"; an output without a declared type shows the inferred one
  };
  std::vector<IO> inputs;  // graph inputs without an initializer
  std::vector<IO> outputs;
  int64_t nodes = 0;       // main graph and subgraphs
  int64_t op_types = 0;    // distinct (domain, op type)
};

struct CheckReport {
  std::string file;
  std::optional<ModelSummary> model;  // absent when the file could not be read
  Target target = Target::Cpu;
  std::vector<Finding> findings;
  bool unreadable = false;   // the file could not be read as a model (exit 2)
  bool unsupported = false;  // the importer does not support a feature the model uses (exit 3, MC-FILE-008)
  std::optional<TargetSummary> target_summary;

  int count(Severity s) const;
  int exit_code() const;  // 0 no errors, 1 errors, 2 unreadable, 3 unsupported feature
};

// Everything the rules share: the model, the inference result, options and the findings list.
class Context {
 public:
  Context(const Model& m, const CheckOptions& o, const GraphInference& inf) : model(m), opts(o), inference(inf) {}
  const Model& model;
  const CheckOptions& opts;
  const GraphInference& inference;
  std::vector<Finding> findings;
  std::optional<TargetSummary> target_summary;

  // Reports rule `id` with its catalogue severity (or `sev` when given).
  void node_finding(const std::string& id, const Graph& g, size_t node_index, std::string message,
                    std::string hint = "", std::optional<Severity> sev = std::nullopt);
  void tensor_finding(const std::string& id, const std::string& tensor, std::string message, std::string hint = "",
                      std::optional<Severity> sev = std::nullopt);
  bool node_has_error(const Graph& g, size_t node_index) const;

  // Where a subgraph sits, for messages: "" for the main graph, " (in subgraph 'body' of node L)".
  std::map<const Graph*, std::string> where;
  std::set<std::pair<const Graph*, size_t>> error_nodes;
};

std::string node_id(const Graph& g, size_t i);  // name or "#i"
std::string op_name(const Node& n);             // "Conv", "com.microsoft.FusedConv"

// Rule families (each appends findings to ctx).
void check_graph_structure(Context& ctx);
void check_schema(Context& ctx);
void check_types_shapes(Context& ctx);
void check_deployability(Context& ctx);
void check_target(Context& ctx);

// Target support tables (targets.cc).
bool target_supports(Target t, const std::string& domain, const std::string& op_type);

// Integrity of the raw file (file_rules.cc). Returns the model when it could be imported; findings
// about the file are appended to `findings`, `unreadable` set when the file cannot be read as a model,
// `*unsupported` (when given) when the importer rejects a feature it does not support (ErrorCode::Unsupported).
std::optional<Model> load_checked(const std::string& path, std::vector<Finding>& findings, bool& unreadable,
                                  bool* unsupported = nullptr);

// The whole check of a file / an in-memory model.
CheckReport check_file(const std::string& path, const CheckOptions& opts);
CheckReport check_model(const Model& model, const CheckOptions& opts);

std::string format_text(const CheckReport& r);
std::string format_json(const CheckReport& r);

}  // namespace ms::check
