#include "passes/pass.h"

#include <cmath>
#include <set>

namespace ms::passes {

void PassStats::reject(const std::string& reason, const Node& at) {
  auto& r = rejections[reason];
  if (r.first++ == 0) r.second = at.label();
}

void PatternPass::run(Rewriter& rw, const PassContext& ctx, PassStats& stats) {
  const std::vector<std::unique_ptr<Pattern>> patterns = make_(ctx);
  if (patterns.empty()) return;
  std::vector<std::set<std::string>> anchors;
  for (const auto& p : patterns) {
    std::set<std::string> a;
    for (const auto& s : p->anchors()) a.insert(s.find(':') == std::string::npos ? ":" + s : s);
    anchors.push_back(std::move(a));
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    stats.rejections.clear();  // only the last sweep's reasons describe the result
    bool changed = false;
    for (size_t i = 0; i < rw.size(); ++i) {
      for (size_t k = 0; k < patterns.size(); ++k) {
        const Node& n = rw.node(i);
        if (!anchors[k].empty() && !anchors[k].count(n.domain + ":" + n.op_type)) continue;
        if (patterns[k]->apply(rw, i, stats)) {
          ++stats.rewrites;
          changed = true;
          break;  // node i is a different node now; the next sweep looks at it again
        }
      }
    }
    if (!changed) return;
  }
  throw Error(ErrorCode::Internal, fmt::format("pass {} did not reach a fixed point in {} sweeps", name_, kMaxSweeps));
}

const Node* input_producer(Rewriter& rw, const Node& n, size_t i, const std::string& op) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
  const Node* p = rw.producer(n.inputs[i]);
  return p && p->domain.empty() && p->op_type == op ? p : nullptr;
}

std::optional<double> scalar_constant(Rewriter& rw, const std::string& value) {
  const Tensor* t = rw.constant(value);
  if (!t || t->numel() < 1 || !dtype_is_float(t->dtype())) return std::nullopt;
  const double v = t->as_double(0);
  for (int64_t i = 1; i < t->numel(); ++i)
    if (t->as_double(i) != v) return std::nullopt;
  return v;
}

bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace ms::passes
