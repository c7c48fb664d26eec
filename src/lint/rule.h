// What a lint rule sees and how it reports. One rule per file in src/lint/rules/, each a function
// `void rule_lNNN(RuleContext&)` listed explicitly in lint.cc's rule table.
#pragma once
#include <string>
#include <vector>

#include "lint/analysis.h"
#include "lint/lint.h"

namespace ms::lint {

class RuleContext {
 public:
  RuleContext(const Project& p, Target t, std::vector<Finding>& out) : project(p), target(t), out_(out) {}

  const Project& project;
  const Target target;

  // Reports `node` of `file` under rule `id`, with the severity for the current target.
  void report(const char* id, const SourceFile& file, const Node& node, Severity v2, Severity v1, std::string message,
              std::string hint) {
    Finding f;
    f.rule = id;
    f.severity = target == Target::V2 ? v2 : v1;
    f.file = file.path;
    f.line = nline(node);
    f.column = ncol(node) + 1;
    f.message = std::move(message);
    f.hint = std::move(hint);
    out_.push_back(std::move(f));
  }
  Kind kind(const FunctionInfo& fn, const Node& e) const { return project.kind(fn, e); }
  // Source-like text of a small expression, for messages ("self.drop", "np.zeros", "x.shape").
  static std::string text(const Node& e);

 private:
  std::vector<Finding>& out_;
};

// Calls fn(node) for every node of a graph function's body (nested defs and lambdas included).
template <class Fn>
void for_each_node(const FunctionInfo& f, Fn&& fn) {
  if (const Node* body = field(*f.def, "body")) walk(*body, fn);
}

void rule_l001(RuleContext& ctx);  // comprehensions and generator expressions
void rule_l002(RuleContext& ctx);  // len/in/zip/isinstance on tensors, iterating a tensor
void rule_l003(RuleContext& ctx);  // iterating a dict
void rule_l004(RuleContext& ctx);  // if/while on tensor values or run-time containers
void rule_l005(RuleContext& ctx);  // numpy, cv2, PIL, .asnumpy()
void rule_l006(RuleContext& ctx);  // attribute creation / assignment in construct
void rule_l007(RuleContext& ctx);  // reshape/view with -1 on dynamically shaped tensors
void rule_l008(RuleContext& ctx);  // random ops and Dropout
void rule_l009(RuleContext& ctx);  // print of tensors
void rule_l010(RuleContext& ctx);  // try/except
void rule_l011(RuleContext& ctx);  // global/nonlocal
void rule_l012(RuleContext& ctx);  // yield
void rule_l013(RuleContext& ctx);  // lambdas capturing mutable state
void rule_l014(RuleContext& ctx);  // float64/int64 numpy arrays turned into Tensors
void rule_l015(RuleContext& ctx);  // construct parameters defaulting to None

}  // namespace ms::lint
