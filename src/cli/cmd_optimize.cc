// ms optimize: the graph optimizer (src/passes/pipelines.cc). Loads a model, runs the level's
// pass pipeline, checks that the optimized model computes what the original does (seeded random
// inputs or --inDataFile, 1e-4 relative, 2e-2 for quantized models; with --verifyEach after every pass, naming the pass that
// broke it), reports what each pass did and the activation memory before and after, and writes the
// result in the input's format (or --saveType). Nothing is written when the check fails (exit 1).
#include <filesystem>
#include <iostream>

#include "cli/cli_util.h"
#include "cli/convert_common.h"
#include "cli/feeds.h"
#include "ops/infer_graph.h"
#include "passes/equivalence.h"
#include "passes/pipelines.h"
#include "runtime/memory/liveness_plan.h"

namespace ms::cli {
namespace {

constexpr double kTolerance = 1e-4;
// Quantized models: the cpu level turns QDQ convolutions into integer ones (QLinearConv), whose
// requantization rounds the bias and the multiplier's ties differently from float Conv + Q; a
// unit of one layer's quantization step can carry to the outputs.
constexpr double kQuantizedTolerance = 2e-2;

bool has_quantized_ops(const Graph& g) {
  for (const auto& n : g.nodes)
    if (const OpDef* d = OpRegistry::global().find(n.domain, n.op_type); d && (d->traits & kTraitQuantized)) return true;
  return false;
}

// Models share tensor storage on copy, which passes never write into; subgraphs are shared
// pointers that renames do edit, so they are cloned.
void clone_subgraphs(Graph& g) {
  for (auto& n : g.nodes)
    for (auto& [k, a] : n.attrs) {
      if (a.g) {
        a.g = std::make_shared<Graph>(*a.g);
        clone_subgraphs(*a.g);
      }
      for (auto& sg : a.graphs) {
        sg = std::make_shared<Graph>(*sg);
        clone_subgraphs(*sg);
      }
    }
}

std::string mib(size_t b) { return fmt::format("{:.2f} MiB", b / 1048576.0); }

// Sizes come from the inputs the check ran on, so that models with dynamic dims get a plan too.
MemoryPlan activation_plan(const Model& m, const std::vector<Value>& feeds) {
  GraphInferOptions o;
  for (size_t i = 0; i < feeds.size() && i < m.graph.inputs.size(); ++i)
    if (feeds[i].is_tensor()) o.input_shapes[m.graph.inputs[i].name] = feeds[i].tensor.shape();
  return plan_activation_memory(m, infer_graph(m, o));
}

ModelFormat output_format(const std::string& save_type, const std::string& out, const std::string& in) {
  if (!save_type.empty()) {
    ModelFormat f = parse_model_format(save_type);
    if (f != ModelFormat::Onnx && f != ModelFormat::MindIR) fail("--saveType must be ONNX or MINDIR, not '{}'", save_type);
    return f;
  }
  for (const std::string& p : {out, in}) {
    const std::string ext = std::filesystem::path(p).extension().string();
    if (ext == ".onnx") return ModelFormat::Onnx;
    if (ext == ".mindir") return ModelFormat::MindIR;
  }
  return ModelFormat::Onnx;
}

void print_report(const passes::OptimizeResult& r, bool details) {
  std::cout << fmt::format("  {:<34} {:>9} {:>10} {:>7}\n", "pass", "rewrites", "time ms", "nodes");
  for (const auto& p : r.passes) {
    if (p.disabled) {
      std::cout << fmt::format("  {:<34} {:>9} {:>10} {:>7}\n", p.name, "disabled", "-", p.nodes_after);
      continue;
    }
    std::cout << fmt::format("  {:<34} {:>9} {:>10.1f} {:>7}\n", p.name, p.stats.rewrites, p.seconds * 1e3, p.nodes_after);
    if (details)
      for (const auto& [reason, seen] : p.stats.rejections)
        std::cout << fmt::format("      not rewritten ({}x, first {}): {}\n", seen.first, seen.second.empty() ? "-" : seen.second, reason);
  }
}

}  // namespace

int cmd_optimize(const Args& args) {
  CLI::App app("Optimize a model's graph (pass pipeline per level) and check it still computes the same", "optimize");
  std::string model_file, output_file, level = "general", disable, input_shape, save_type, in_data, rename;
  bool report = false, verify_each = false, skip_verify = false;
  int64_t fold_limit = int64_t(1) << 24;
  app.add_option("--modelFile", model_file, "input model (.onnx or .mindir)")->required();
  app.add_option("--outputFile", output_file, "optimized model")->required();
  app.add_option("--optimize", level, "general (default) | cpu | ascend");
  app.add_option("--disablePasses", disable, "comma-separated pass names to skip (see --report for the names)");
  app.add_flag("--report", report, "also say, per pass, why candidates were not rewritten");
  app.add_flag("--verifyEach", verify_each, "verify the IR and the outputs after every pass; a failure names the pass");
  app.add_flag("--skipVerify", skip_verify, "do not compare the optimized model's outputs with the original's");
  app.add_option("--inputShape", input_shape, "fix input shapes: \"a:1,3,224,224;b:1,16\" (enables shape-subgraph folding)");
  app.add_option("--renameIO", rename, "rename graph inputs/outputs: \"input:0=input,old=new\" (after --inputShape)");
  app.add_option("--saveType", save_type, "ONNX | MINDIR (default: the format of --outputFile's extension, else the input's)");
  app.add_option("--inDataFile", in_data, "inputs for the equality check (.pb/.npy/.bin, comma-separated; default: seeded random)");
  app.add_option("--foldLimit", fold_limit, "largest tensor (elements) constant folding may create (default 16777216)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 40));
  return run_command(app, args, [&] {
    const ModelFormat out_fmt = output_format(save_type, output_file, model_file);
    if (std::filesystem::exists(output_file) && std::filesystem::exists(model_file) &&
        std::filesystem::equivalent(output_file, model_file))
      fail("--outputFile {} is the input model; choose another path", output_file);
    Model m = load_model(model_file);
    if (!input_shape.empty()) apply_input_shapes(m, input_shape);
    if (!rename.empty()) rename_io(m, rename);
    Model original = m;
    clone_subgraphs(original.graph);

    passes::OptimizeOptions opts;
    opts.level = level;
    for (const auto& d : split_list(disable)) opts.disabled.insert(d);
    opts.verify_each = verify_each;
    opts.ctx.fold_limit_elements = fold_limit;
    // A written file is read by other runtimes (ONNX Runtime, MindSpore): no com.mstools fused ops,
    // which only this project's runtime knows.
    opts.ctx.allow_ms_domain = false;

    // A model with random ops gives other outputs on every run: only the IR can be verified.
    const bool random = passes::has_random_ops(original);
    const bool check = (!skip_verify || verify_each) && !random;
    const double tolerance = has_quantized_ops(original.graph) ? kQuantizedTolerance : kTolerance;
    std::vector<Value> feeds, reference;
    if (check) {
      if (in_data.empty()) {
        feeds = passes::seeded_inputs(original, 0, {});
      } else {
        SessionOptions so;
        so.reference_kernels = true;
        feeds = read_feeds(Session(std::make_shared<const Model>(original), so), in_data);
      }
      try {
        reference = passes::run_reference(original, feeds);
      } catch (const Error& e) {
        throw Error(e.code(), fmt::format("the original model does not run on {} ({}); give inputs with --inDataFile, fix "
                                          "dynamic dims with --inputShape, or skip the check with --skipVerify",
                                          in_data.empty() ? "seeded random inputs (dynamic dims set to 1)" : in_data, e.what()));
      }
    }
    auto check_model = [&](const Model& cur) {
      return passes::describe_differences(passes::compare_outputs(reference, cur, feeds, original.graph.outputs), tolerance);
    };
    if (verify_each && check) opts.check_after_pass = check_model;

    passes::OptimizeResult r = passes::optimize_model(m, opts);
    std::cout << fmt::format("optimize {} (level {})\n", model_file, level);
    print_report(r, report);
    if (!r.failed_pass.empty()) {
      std::cerr << fmt::format("ms optimize: pass {} broke the model: {}\nNothing written; rerun with --disablePasses {} to skip it.\n",
                               r.failed_pass, r.failure, r.failed_pass);
      return 1;
    }
    double worst = 0;
    if (check) {
      auto diffs = passes::compare_outputs(reference, m, feeds, original.graph.outputs);
      const std::string problem = passes::describe_differences(diffs, tolerance);
      if (!problem.empty()) {
        std::cerr << "ms optimize: the optimized model differs from the original: " << problem
                  << "\nNothing written; rerun with --verifyEach to find the pass.\n";
        return 1;
      }
      for (const auto& d : diffs) worst = std::max(worst, d.rel_error);
    }
    const MemoryPlan before = activation_plan(original, feeds), after = activation_plan(m, feeds);
    const std::string written = write_model_file(m, output_file, out_fmt);
    std::cout << fmt::format("  nodes:       {} -> {}\n", r.nodes_before, r.nodes_after);
    std::cout << fmt::format("  parameters:  {} -> {} bytes\n", r.param_bytes_before, r.param_bytes_after);
    std::cout << fmt::format("  activations: arena peak {} -> {} (liveness plan); one buffer per tensor would need {} -> {}",
                             mib(before.arena_bytes), mib(after.arena_bytes), mib(before.total_bytes), mib(after.total_bytes));
    if (after.total_bytes && after.unsized.empty()) std::cout << fmt::format(" (plan saves {:.0f}%)", 100.0 * (1.0 - double(after.arena_bytes) / after.total_bytes));
    std::cout << "\n";
    if (!after.unsized.empty())
      std::cout << fmt::format("               ({} tensors of unknown size not planned: give --inputShape or --inDataFile)\n", after.unsized.size());
    if (check)
      std::cout << fmt::format("  verified:    outputs equal within {:.0e} relative on {} (worst {:.2g})\n", tolerance,
                               in_data.empty() ? "seeded random inputs" : in_data, worst);
    else
      std::cout << "  verified:    outputs not compared (" << (random ? "the model has random operators" : "--skipVerify") << ")\n";
    std::cout << "  written:     " << written << "\n";
    return 0;
  });
}

}  // namespace ms::cli
