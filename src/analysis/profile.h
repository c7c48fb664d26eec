// Profile of a model's execution: per-node and per-op-type time, share of the run, FLOPs, GFLOP/s
// and bytes moved, averaged over several runs; memory (peak of live intermediate tensors, weights,
// per-op temporaries); and the Chrome trace-event form of one run (Perfetto and chrome://tracing
// open it).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/session.h"

namespace ms {

struct NodeProfile {
  size_t node_index = 0;
  std::string name, op_type, kernel;
  double ms = 0;      // mean time per run
  double share = 0;   // of the summed node time
  double flops = 0;   // per run
  double bytes = 0;   // input + output bytes per run
  size_t scratch_bytes = 0;
  double gflops() const { return ms > 0 ? flops / (ms * 1e6) : 0; }
};

struct OpTypeProfile {
  std::string op_type;
  size_t count = 0;
  double ms = 0, share = 0, flops = 0, bytes = 0;
  double gflops() const { return ms > 0 ? flops / (ms * 1e6) : 0; }
};

struct ProfileSummary {
  std::vector<NodeProfile> nodes;     // in graph order
  std::vector<OpTypeProfile> types;   // most time first
  size_t runs = 0;
  double wall_ms = 0;      // mean wall time of a run
  double node_sum_ms = 0;  // mean of the summed node times of a run
  double flops = 0;
  // The activation arena plus the most bytes of intermediate tensors alive at once outside it.
  size_t arena_peak_bytes = 0;
  size_t arena_bytes = 0;  // the liveness-planned activation arena (largest over the runs)
  size_t weight_bytes = 0;      // initializers
  size_t max_scratch_bytes = 0;
  size_t fast_nodes = 0;
  // Time on reference kernels (nodes marked "reference", and the nodes of If/Loop/Scan bodies on
  // reference kernels, whose time is inside their control-flow node's) and its share of the
  // summed node time.
  double reference_ms = 0, reference_share = 0;
  size_t reference_nodes = 0;
};

ProfileSummary summarize_profile(const Model& model, const std::vector<RunProfile>& runs);

// Text tables: per op type, then the `top_nodes` slowest nodes (0 = all).
std::string profile_text(const ProfileSummary& p, size_t top_nodes);
nlohmann::json profile_json(const ProfileSummary& p);
// Chrome trace-event JSON of one run ("X" events, microseconds), written atomically.
void write_chrome_trace(const Model& model, const RunProfile& run, const std::string& path);

}  // namespace ms
