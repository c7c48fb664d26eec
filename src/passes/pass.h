// The pass system (DESIGN.md §2): a Pass transforms the model through a Rewriter and reports how
// many rewrites it made. Most passes are sets of Patterns: a pattern names the op types it is
// anchored at (a cheap filter), then match() checks the conditions and either returns what it
// found or says why not, and rewrite() performs the change through the Rewriter. The greedy
// driver applies a pass's patterns over the graph until nothing more matches (a fixed point).
// Each pass is one file exposing a factory; pipelines.cc orders them per level.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "passes/rewriter.h"

namespace ms::passes {

// Options every pass may read (no global state).
struct PassContext {
  // Constant folding refuses to materialize a tensor with more elements than this.
  int64_t fold_limit_elements = int64_t(1) << 24;
  // Fixed input shapes (--inputShape), used by inference and shape-subgraph folding.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Whether the output format can hold com.mstools ops (ONNX can, MindIR cannot): passes that
  // would write them hold back when it cannot.
  bool allow_ms_domain = true;
};

// What a pass did, for the report.
struct PassStats {
  size_t rewrites = 0;
  // Why candidates were not rewritten: reason -> count (the first example node is kept too).
  std::map<std::string, std::pair<size_t, std::string>> rejections;
  void reject(const std::string& reason, const Node& at);
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual void run(Rewriter& rw, const PassContext& ctx, PassStats& stats) = 0;
};

// A failed match: the reason, for the report and for tests.
struct NoMatch {
  std::string reason;
};

template <class M>
using MatchResult = std::variant<M, NoMatch>;

class Pattern {
 public:
  virtual ~Pattern() = default;
  // Op types (default domain unless given as "domain:Op") the pattern is anchored at; empty = all.
  virtual std::vector<std::string> anchors() const = 0;
  // Tries the pattern at node `index`; rewrites and returns true when it applies, else records why
  // not in `stats` (unless the anchor check alone failed) and returns false.
  virtual bool apply(Rewriter& rw, size_t index, PassStats& stats) = 0;
};

// A pattern split into a typed match and a rewrite. `Found` carries what match() found.
template <class Found>
class TypedPattern : public Pattern {
 public:
  virtual MatchResult<Found> match(Rewriter& rw, size_t index) = 0;
  virtual void rewrite(Rewriter& rw, const Found& found) = 0;
  bool apply(Rewriter& rw, size_t index, PassStats& stats) final {
    MatchResult<Found> r = match(rw, index);
    if (auto* no = std::get_if<NoMatch>(&r)) {
      if (!no->reason.empty()) stats.reject(no->reason, rw.node(index));
      return false;
    }
    rewrite(rw, std::get<Found>(r));
    return true;
  }
};

// Makes a pass's patterns for one run; may depend on the context (none when the output format
// cannot hold what they write).
using PatternFactory = std::function<std::vector<std::unique_ptr<Pattern>>(const PassContext&)>;

// A pass made of patterns, run by the greedy fixed-point driver.
class PatternPass : public Pass {
 public:
  PatternPass(std::string name, std::string description, PatternFactory make)
      : name_(std::move(name)), description_(std::move(description)), make_(std::move(make)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  void run(Rewriter& rw, const PassContext& ctx, PassStats& stats) override;

  // The driver stops after this many sweeps even if patterns still match (a pattern pair that
  // undoes each other would otherwise never end); reaching it is an internal error.
  static constexpr int kMaxSweeps = 50;

 private:
  std::string name_, description_;
  PatternFactory make_;
};

// The factory of a pass with the one pattern P (constructed from the context when it takes one).
template <class P>
PatternFactory single_pattern() {
  return [](const PassContext& ctx) {
    std::vector<std::unique_ptr<Pattern>> v;
    if constexpr (std::is_constructible_v<P, const PassContext&>) v.push_back(std::make_unique<P>(ctx));
    else v.push_back(std::make_unique<P>());
    return v;
  };
}

// A pass that is one function over the whole graph (folding, elimination, CSE).
class FunctionPass : public Pass {
 public:
  using Fn = std::function<void(Rewriter&, const PassContext&, PassStats&)>;
  FunctionPass(std::string name, std::string description, Fn fn)
      : name_(std::move(name)), description_(std::move(description)), fn_(std::move(fn)) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  void run(Rewriter& rw, const PassContext& ctx, PassStats& stats) override { fn_(rw, ctx, stats); }

 private:
  std::string name_, description_;
  Fn fn_;
};

// Match helpers shared by patterns.
// The node producing input `i` of `n`, when it exists and has op type `op` (default domain).
const Node* input_producer(Rewriter& rw, const Node& n, size_t i, const std::string& op);
// A scalar (or all-equal) float constant; nullopt when `value` is not such a constant.
std::optional<double> scalar_constant(Rewriter& rw, const std::string& value);
bool near(double a, double b, double rel = 1e-5);

}  // namespace ms::passes
