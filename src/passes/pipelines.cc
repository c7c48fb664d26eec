// The pass pipelines per level. Order matters where one pass creates what another matches; the
// comments say where.
#include "passes/pipelines.h"

#include <algorithm>
#include <chrono>

#include "passes/pass_list.h"
#include "passes/subgraphs.h"
#include "passes/verify_ir.h"

namespace ms::passes {
namespace {

std::vector<std::unique_ptr<Pass>> general_pipeline() {
  std::vector<std::unique_ptr<Pass>> p;
  // First: every later pattern needs constants where the model computes them (Clip bounds,
  // BatchNormalization parameters, Reshape shapes from Shape->Gather->Concat chains).
  p.push_back(make_fold_constants());
  p.push_back(make_eliminate_noops());
  // After folding: shape chains computed twice have become identical constants or nodes.
  p.push_back(make_eliminate_common_subexpressions());
  p.push_back(make_merge_layout_chains());
  // Recognize the decomposed normalizations and activations before any fusion: GELU must be
  // one node for fuse_activation to put it into FusedMatMul.
  p.push_back(make_fuse_layer_norm());
  p.push_back(make_fuse_gelu());
  // HardSwish spelled out (x * Clip(x + 3, 0, 6) / 6) must be one node for fuse_activation too.
  p.push_back(make_fuse_hard_swish());
  // Likewise tf.maximum(x, a * x).
  p.push_back(make_fuse_leaky_relu());
  // Needs the constant Reshape shapes of fold_constants.
  p.push_back(make_fuse_attention());
  // BatchNormalization sits between Conv and its activation: fold it before fusing activations.
  p.push_back(make_fold_batch_norm());
  p.push_back(make_fold_scale_shift());
  p.push_back(make_fold_pad());
  // MatMul + bias first, so that a 2-D Linear becomes the Gemm whose transposes are folded next.
  p.push_back(make_fuse_matmul_add());
  p.push_back(make_fold_transpose_into_gemm());
  // Last fusion: Conv/Gemm/MatMul must be in final form (bias and BN inside) to absorb the
  // activation and residual add.
  p.push_back(make_fuse_activation());
  // Fusions leave pass-through ops (a Transpose pair made identity, ...) and dead weights.
  p.push_back(make_eliminate_noops());
  p.push_back(make_eliminate_dead_code());
  p.push_back(make_dedupe_initializers());
  return p;
}

}  // namespace

std::vector<std::string> optimize_levels() { return {"general", "cpu", "ascend"}; }

// cpu: fuse_quantized_conv, then the same passes as general. What the CPU runtime wants beyond them (blocked layouts,
// prepacked weights) it decides when a session is created (runtime/kernels), per input shape, so
// no graph rewrite would help it. ascend: the general passes, restricted to standard ops
// (configure_for_level), because the Ascend path is MindIR and MindSpore's graph compiler does its
// own Conv/BN/activation fusion; there is no Ascend-specific pass.
std::vector<std::unique_ptr<Pass>> make_pipeline(const std::string& level) {
  if (level == "cpu") {
    // QDQ convolutions become int8 ones first: fold_constants would dequantize their weights.
    std::vector<std::unique_ptr<Pass>> p;
    p.push_back(make_fuse_quantized_conv());
    for (auto& pass : general_pipeline()) p.push_back(std::move(pass));
    return p;
  }
  if (level == "general" || level == "ascend") return general_pipeline();
  fail("--optimize must be general, cpu or ascend, not '{}'", level);
}

void configure_for_level(const std::string& level, PassContext& ctx) {
  if (level == "ascend") ctx.allow_ms_domain = false;
}

// The step that runs the pipeline inside If/Loop/Scan bodies (passes/subgraphs.h), after the
// main graph: folding there may have made a branch's inputs constant.
constexpr const char* kSubgraphStep = "optimize_subgraphs";

std::vector<std::string> all_pass_names() {
  std::vector<std::string> names;
  for (const auto& p : make_pipeline("cpu"))
    if (std::find(names.begin(), names.end(), p->name()) == names.end()) names.push_back(p->name());
  names.push_back(kSubgraphStep);
  return names;
}

size_t fold_channel_affine_into_weights(Model& m) {
  Rewriter rw(m, GraphInferOptions{});
  PassStats stats;
  for (auto* make : {make_fold_batch_norm, make_fold_scale_shift, make_eliminate_dead_code}) make()->run(rw, PassContext{}, stats);
  return stats.rewrites;
}

size_t parameter_bytes(const Model& m) {
  size_t b = 0;
  for (const auto& [k, t] : m.graph.initializers) b += t.nbytes();
  for (const auto& n : m.graph.nodes)  // weights held by Constant nodes (PaddlePaddle exports)
    if (const Attribute* v = n.attr("value"); v && n.op_type == "Constant" && n.domain.empty()) b += v->t.nbytes();
  return b;
}

OptimizeResult optimize_model(Model& m, const OptimizeOptions& opts) {
  const auto known = all_pass_names();
  for (const auto& d : opts.disabled)
    if (std::find(known.begin(), known.end(), d) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail("--disablePasses names '{}', which is not a pass (passes: {})", d, list);
    }
  PassContext ctx = opts.ctx;
  configure_for_level(opts.level, ctx);
  OptimizeResult r;
  r.nodes_before = m.graph.nodes.size();
  r.param_bytes_before = parameter_bytes(m);
  GraphInferOptions infer_opts;
  infer_opts.input_shapes = ctx.input_shapes;
  // Verification after a step; false (and the failure recorded) when the model is broken.
  auto verified = [&](const PassRecord& rec) {
    if (!opts.verify_each || rec.stats.rewrites == 0) return true;
    std::string problem;
    for (const auto& p : verify_ir(m)) problem += (problem.empty() ? "" : "; ") + p;
    if (problem.empty() && opts.check_after_pass) problem = opts.check_after_pass(m);
    if (problem.empty()) return true;
    r.failed_pass = rec.name;
    r.failure = problem;
    r.nodes_after = m.graph.nodes.size();
    r.param_bytes_after = parameter_bytes(m);
    return false;
  };
  {
    Rewriter rw(m, infer_opts);
    for (auto& pass : make_pipeline(opts.level)) {
      PassRecord rec;
      rec.name = pass->name();
      rec.disabled = opts.disabled.count(rec.name) > 0;
      if (!rec.disabled) {
        const auto t0 = std::chrono::steady_clock::now();
        pass->run(rw, ctx, rec.stats);
        rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      rec.nodes_after = m.graph.nodes.size();
      r.passes.push_back(rec);
      if (!verified(rec)) return r;
    }
  }
  PassRecord sub;
  sub.name = kSubgraphStep;
  sub.disabled = opts.disabled.count(sub.name) > 0;
  if (!sub.disabled) {
    const auto t0 = std::chrono::steady_clock::now();
    sub.stats.rewrites = optimize_subgraphs(m, [&](Model& body) {
      size_t rewrites = 0;
      Rewriter rw(body, {});
      for (auto& pass : make_pipeline(opts.level)) {
        if (opts.disabled.count(pass->name())) continue;
        PassStats s;
        pass->run(rw, ctx, s);
        rewrites += s.rewrites;
      }
      return rewrites;
    });
    sub.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  sub.nodes_after = m.graph.nodes.size();
  r.passes.push_back(sub);
  if (!verified(sub)) return r;
  r.nodes_after = m.graph.nodes.size();
  r.param_bytes_after = parameter_bytes(m);
  return r;
}

}  // namespace ms::passes
