#include "analysis/compare.h"

#include <algorithm>
#include <cmath>

#include "analysis/bisect.h"
#include "analysis/tensor_capture.h"

namespace ms::analysis {

namespace {

// Incremental mean that lets an infinite value (a PSNR of identical tensors) dominate.
void running_mean(double& mean, double x, size_t n) {
  if (!std::isfinite(mean)) return;
  if (!std::isfinite(x) || n == 1)
    mean = x;
  else
    mean += (x - mean) / static_cast<double>(n);
}

void running_mean(std::optional<double>& mean, const std::optional<double>& x, size_t n) {
  if (!x) return;
  if (!mean) mean = *x;
  else running_mean(*mean, *x, n);
}

void keep_min(std::optional<double>& w, const std::optional<double>& x) {
  if (x && (!w || *x < *w)) w = x;
}

std::string file_of(const Model& m) { return m.source_path.empty() ? "model" : m.source_path; }

template <class F>
auto with_context(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", what, e.what()));
  }
}

std::string backend_name(const SessionOptions& o) {
  if (o.reference_kernels) return "reference";
  if (o.compute_precision == DType::Float32) return "fast";
  return fmt::format("fast, {} compute", o.compute_precision == DType::Float16 ? "fp16" : "bf16");
}

}  // namespace

std::string node_title(const Graph& g, size_t k) {
  const Node& n = g.nodes[k];
  std::string type = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
  return fmt::format("{} ({})", n.name.empty() ? "#" + std::to_string(k) : n.name, type);
}

void MetricSummary::add(const TensorMetrics& m, bool ok, size_t sample) {
  ++samples;
  if (!ok) ++failing_samples;
  if (samples == 1) {
    mean = worst = m;
    worst_sample = sample;
    return;
  }
  running_mean(mean.cosine, m.cosine, samples);
  running_mean(mean.max_abs, m.max_abs, samples);
  running_mean(mean.mean_abs, m.mean_abs, samples);
  running_mean(mean.mse, m.mse, samples);
  running_mean(mean.psnr, m.psnr, samples);
  running_mean(mean.max_rel, m.max_rel, samples);
  running_mean(mean.top1, m.top1, samples);
  running_mean(mean.top5, m.top5, samples);
  if (m.cosine < worst.cosine || std::isnan(m.cosine)) {
    worst.cosine = m.cosine;
    worst_sample = sample;
  }
  worst.comparable = worst.comparable && m.comparable;
  worst.same_shape = worst.same_shape && m.same_shape;
  worst.max_abs = std::max(worst.max_abs, m.max_abs);
  worst.mean_abs = std::max(worst.mean_abs, m.mean_abs);
  worst.mse = std::max(worst.mse, m.mse);
  worst.psnr = std::min(worst.psnr, m.psnr);
  worst.max_rel = std::max(worst.max_rel, m.max_rel);
  worst.nonfinite_mismatches = std::max(worst.nonfinite_mismatches, m.nonfinite_mismatches);
  worst.tolerance_violations = std::max(worst.tolerance_violations, m.tolerance_violations);
  keep_min(worst.top1, m.top1);
  keep_min(worst.top5, m.top5);
}

bool CompareResult::pass() const {
  for (const auto& o : outputs)
    if (!o.metrics.pass()) return false;
  return true;
}

namespace {

// The first output that looks like class scores, for --labels.
std::optional<size_t> classification_output(const std::vector<Value>& outs) {
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].is_tensor() && classification_layout(outs[i].tensor)) return i;
  return std::nullopt;
}

class LabelScorer {
 public:
  explicit LabelScorer(const std::vector<int64_t>& labels) : labels_(labels) {}

  void add(const Tensor& model_out, const Tensor& ref_out) {
    if (model_out.numel() != ref_out.numel())
      fail("--labels: the model's class scores {} and the reference's {} differ in size", shape_str(model_out.shape()),
           shape_str(ref_out.shape()));
    auto layout = *classification_layout(ref_out);
    auto mine = row_argmax(model_out, layout);
    auto theirs = row_argmax(ref_out, layout);
    for (size_t r = 0; r < theirs.size(); ++r, ++rows_) {
      if (rows_ >= labels_.size())
        fail("--labels holds {} labels, fewer than the {}+ rows of class scores the samples produce", labels_.size(),
             rows_ + 1);
      model_hits_ += r < mine.size() && mine[r] == labels_[rows_];
      ref_hits_ += theirs[r] == labels_[rows_];
    }
  }

  Accuracy finish(const std::string& output) const {
    if (rows_ != labels_.size())
      fail("--labels holds {} labels but the samples produce {} rows of class scores", labels_.size(), rows_);
    double n = static_cast<double>(std::max<size_t>(rows_, 1));
    return {output, rows_, static_cast<double>(model_hits_) / n, static_cast<double>(ref_hits_) / n};
  }

 private:
  const std::vector<int64_t>& labels_;
  size_t rows_ = 0, model_hits_ = 0, ref_hits_ = 0;
};

void compare_outputs(const std::vector<Value>& mine, const std::vector<Value>& ref, size_t sample,
                     const Tolerance& tol, std::vector<OutputResult>& results) {
  for (size_t k = 0; k < results.size(); ++k) {
    if (!mine[k].is_tensor() || !ref[k].is_tensor())
      fail("output '{}' is not a tensor in both models; only tensor outputs can be compared", results[k].name);
    auto m = compare_tensors(mine[k].tensor, ref[k].tensor, tol);
    add_top_k_agreement(mine[k].tensor, ref[k].tensor, m);
    results[k].metrics.add(m, within_tolerance(m, tol), sample);
  }
}

void compare_layers(const Capture& a, const Capture& b, size_t sample, const Tolerance& tol,
                    std::vector<LayerResult>& layers) {
  for (auto& l : layers) {
    const Value& x = a.tensors.at(l.pair.name);
    const Value& y = b.tensors.at(l.pair.ref_name);
    if (!x.is_tensor() || !y.is_tensor()) {
      l.skipped = "not a tensor";
      continue;
    }
    // A quantized tensor against its float original: integers are not comparable without their
    // scale, and the dequantized tensor, when paired, is compared instead.
    if (dtype_is_float(x.tensor.dtype()) != dtype_is_float(y.tensor.dtype())) {
      l.skipped = fmt::format("{} against {}", dtype_name(x.tensor.dtype()), dtype_name(y.tensor.dtype()));
      continue;
    }
    auto m = compare_tensors(x.tensor, y.tensor, tol);
    l.metrics.add(m, within_tolerance(m, tol), sample);
  }
}

void check_inputs_agree(const Model& model, const Model& ref) {
  auto a = required_inputs(model.graph);
  auto b = required_inputs(ref.graph);
  if (a.size() != b.size())
    fail("{} takes {} input(s) but the reference {} takes {}: the same data cannot feed both", file_of(model),
         a.size(), file_of(ref), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type.kind == TypeInfo::Kind::Tensor && b[i].type.kind == TypeInfo::Kind::Tensor &&
        a[i].type.dtype != b[i].type.dtype)
      fail("input {} is '{}' {} in {} but '{}' {} in the reference {}", i, a[i].name, a[i].type.str(), file_of(model),
           b[i].name, b[i].type.str(), file_of(ref));
}

}  // namespace

CompareResult compare_models(const Model& model, const Model& ref, const InputSamples& inputs,
                             const CompareOptions& opts) {
  CompareResult r;
  r.model_file = file_of(model);
  r.ref_file = file_of(ref);
  r.backend = backend_name(opts.session);
  r.ref_backend = backend_name(opts.ref_session);
  r.samples = inputs.count();
  r.tolerance = opts.tolerance;
  r.layerwise = opts.layerwise || opts.bisect;
  r.bisect = opts.bisect;
  check_inputs_agree(model, ref);
  if (model.graph.outputs.size() != ref.graph.outputs.size())
    fail("{} has {} output(s) but the reference {} has {}", r.model_file, model.graph.outputs.size(), r.ref_file,
         ref.graph.outputs.size());

  std::vector<TensorPair> pairs;
  if (r.layerwise) pairs = pair_tensors(model, ref);
  std::vector<std::string> names, ref_names;
  for (const auto& p : pairs) {
    names.push_back(p.name);
    ref_names.push_back(p.ref_name);
    r.layers.push_back({p, node_title(model.graph, p.node), node_title(ref.graph, p.ref_node), {}, {}});
  }
  TensorCapture mine(model, names, opts.session);
  TensorCapture theirs(ref, ref_names, opts.ref_session);
  for (size_t k = 0; k < model.graph.outputs.size(); ++k)
    r.outputs.push_back({model.graph.outputs[k].name, ref.graph.outputs[k].name, {}});

  std::optional<LabelScorer> scorer;
  if (opts.labels) scorer.emplace(*opts.labels);
  std::optional<size_t> scored_output;
  for (size_t s = 0; s < inputs.count(); ++s) {
    r.sample_labels.push_back(inputs.label(s));
    auto feeds = inputs.sample(s);
    Capture a = with_context("running " + r.model_file, [&] { return mine.run(feeds); });
    Capture b = with_context("running the reference " + r.ref_file, [&] { return theirs.run(feeds); });
    for (const auto& [file, capture] : {std::pair{&r.model_file, &a}, {&r.ref_file, &b}})
      for (const auto& c : capture->marking_changes) {
        double& worst = r.marking_changes[*file + ": " + c.output];
        worst = std::max(worst, c.max_abs);
      }
    compare_outputs(a.outputs, b.outputs, s, opts.tolerance, r.outputs);
    compare_layers(a, b, s, opts.tolerance, r.layers);
    if (scorer) {
      if (!scored_output) scored_output = classification_output(b.outputs);
      if (!scored_output) fail("--labels: no output of the reference {} looks like class scores", r.ref_file);
      scorer->add(a.outputs[*scored_output].tensor, b.outputs[*scored_output].tensor);
    }
  }
  if (scorer) r.accuracy = scorer->finish(r.outputs[*scored_output].name);
  if (opts.bisect) r.divergence = find_divergence(model, ref, r.layers);
  return r;
}

CompareResult compare_with_outputs(const Model& model, const std::vector<Tensor>& ref_outputs,
                                   const std::vector<std::string>& ref_files, const InputSamples& inputs,
                                   const CompareOptions& opts) {
  CompareResult r;
  r.model_file = file_of(model);
  r.backend = backend_name(opts.session);
  r.samples = inputs.count();
  r.tolerance = opts.tolerance;
  if (inputs.count() != 1)
    fail("--refOutputs compares one sample, but the input data hold {}; compare a dataset against a --refModel",
         inputs.count());
  if (ref_outputs.size() != model.graph.outputs.size())
    fail("{} has {} output(s) but --refOutputs gives {} file(s)", r.model_file, model.graph.outputs.size(),
         ref_outputs.size());
  TensorCapture mine(model, {}, opts.session);
  for (size_t k = 0; k < ref_outputs.size(); ++k) r.outputs.push_back({model.graph.outputs[k].name, ref_files[k], {}});
  r.sample_labels.push_back(inputs.label(0));
  auto feeds = inputs.sample(0);
  Capture a = with_context("running " + r.model_file, [&] { return mine.run(feeds); });
  compare_outputs(a.outputs, {ref_outputs.begin(), ref_outputs.end()}, 0, opts.tolerance, r.outputs);
  return r;
}

}  // namespace ms::analysis
