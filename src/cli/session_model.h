// The model a command's session runs (run, benchmark, profile, compare): loaded, input shapes
// fixed, then prepared as ONNX Runtime prepares a model when it creates a session, so that users
// measure what they will deploy without an `ms optimize` step first:
//   none  the graph as written
//   basic half-precision values lowered to float32 (passes/basic_passes.h), constants folded
//   cpu   half-precision lowering, then the `ms optimize --optimize cpu` pipeline (fusions into
//         com.mstools ops that the fast kernels run); the default
// That the cpu pipeline keeps the model's outputs is what `ms optimize` proves in the tests; it
// is not re-checked on every load.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "core/graph.h"
#include "runtime/session.h"

namespace ms::cli {

struct SessionModelFlags {
  std::string input_shape;  // --inputShape
  std::string optimize = "cpu";  // --optimize
  bool optimize_given = false;   // the user chose the level (else a command may pick "none")
  std::string precision = "fp32";  // --precision: the compute type of float math
};

// Adds --optimize and --precision to `app`. --precision fp16|bf16 computes the convolutions and
// matrix products in half precision (SessionOptions::compute_precision); fp32, the default, computes
// float math in float32 (half-precision models too, once prepared).
void add_optimize_flag(CLI::App& app, SessionModelFlags& flags);
// Adds --inputShape and --optimize.
void add_session_model_flags(CLI::App& app, SessionModelFlags& flags);

struct SessionModel {
  std::shared_ptr<const Model> model;
  std::string level;         // the level applied
  double load_ms = 0;        // reading the file and fixing input shapes
  double optimize_ms = 0;    // lowering and the pipeline
  size_t nodes_before = 0, nodes_after = 0;
  size_t half_precision_changes = 0;  // values, attributes and interface Casts lowered
  DType compute = DType::Float32;     // --precision
};

// Sets the session's compute precision from --precision; the reference kernels compute in float32
// only, so half precision with them is refused (exit 3).
void use_compute_precision(const SessionModel& s, SessionOptions& opts);

// Loads `path` and prepares it at `flags.optimize`, or at `default_level` when the flag was not
// given (a command that pairs tensors by name, or runs the reference oracle, passes "none"). When
// preparing at the default level fails, the model runs as written after a warning on stderr (the
// returned level says "none"); a level the user gave fails the command.
SessionModel load_session_model(const std::string& path, const SessionModelFlags& flags,
                                const std::string& default_level = "cpu");

// "load 12.3 ms, optimize (cpu) 4.5 ms: 120 -> 80 nodes" for the commands' text output.
std::string session_model_summary(const SessionModel& s);

}  // namespace ms::cli
