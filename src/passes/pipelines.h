// The optimizer: pass pipelines per level (pipelines.cc) and the driver that runs one, timing
// each pass, verifying the IR after each with --verifyEach, and reporting what changed.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace ms::passes {

// Levels of `ms optimize --optimize`: general, cpu, ascend.
std::vector<std::string> optimize_levels();
// The passes of `level`, in order. Throws InvalidInput naming the levels for an unknown one.
std::vector<std::unique_ptr<Pass>> make_pipeline(const std::string& level);
// Adjusts the context for a level (ascend writes MindIR, so no com.mstools ops).
void configure_for_level(const std::string& level, PassContext& ctx);
// Every pass name (for --disablePasses validation and help).
std::vector<std::string> all_pass_names();

struct OptimizeOptions {
  std::string level = "general";
  std::set<std::string> disabled;  // pass names; unknown names are an InvalidInput error
  bool verify_each = false;        // run verify_ir (and `check_after_pass`) after every pass
  PassContext ctx;
  // With verify_each, called after each pass that rewrote something; returns "" when the model
  // is still right, else what is wrong (the numeric check of the CLI).
  std::function<std::string(const Model&)> check_after_pass;
};

struct PassRecord {
  std::string name;
  bool disabled = false;
  PassStats stats;
  double seconds = 0;
  size_t nodes_after = 0;
};

struct OptimizeResult {
  std::vector<PassRecord> passes;
  size_t nodes_before = 0, nodes_after = 0;
  size_t param_bytes_before = 0, param_bytes_after = 0;
  std::string failed_pass;  // set when verification after that pass failed (the model is then half-done)
  std::string failure;
};

OptimizeResult optimize_model(Model& m, const OptimizeOptions& opts);

// BatchNormalization and constant per-channel scale/shift after Conv/ConvTranspose/Gemm folded
// into the producer's weight and bias (fold_batch_norm, fold_scale_shift), as a quantizer wants
// them before it picks weight scales. Returns the rewrites.
size_t fold_channel_affine_into_weights(Model& m);

// Bytes of the initializers and Constant-node tensors.
size_t parameter_bytes(const Model& m);

}  // namespace ms::passes
