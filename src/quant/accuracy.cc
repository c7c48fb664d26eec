#include "quant/accuracy.h"

#include <algorithm>
#include <cmath>

#include "analysis/metrics.h"

namespace ms::quant {

AccuracyMetric parse_accuracy_metric(const std::string& s) {
  if (s == "cosine") return AccuracyMetric::Cosine;
  if (s == "psnr") return AccuracyMetric::Psnr;
  if (s == "top1") return AccuracyMetric::Top1;
  fail("--accuracyMetric must be cosine, psnr or top1, not '{}'", s);
}

const char* accuracy_metric_name(AccuracyMetric m) {
  switch (m) {
    case AccuracyMetric::Cosine: return "cosine";
    case AccuracyMetric::Psnr: return "psnr";
    case AccuracyMetric::Top1: return "top1";
  }
  return "?";
}

namespace {

std::vector<Value> run_sample(const Session& s, const analysis::InputSamples& samples, size_t i) {
  try {
    return s.run(samples.sample(i));
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("evaluation sample {}: {}", samples.label(i), e.what()));
  }
}

bool is_float_tensor(const Value& v) { return v.is_tensor() && v.tensor.dtype() == DType::Float32; }

}  // namespace

AccuracyProbe::AccuracyProbe(const Model& float_model, const analysis::InputSamples& samples, AccuracyMetric metric,
                             SessionOptions session, std::optional<std::vector<int64_t>> labels,
                             const std::vector<std::string>& outputs)
    : samples_(samples), metric_(metric), session_(session), labels_(std::move(labels)) {
  const auto& graph_outputs = float_model.graph.outputs;
  for (const auto& o : graph_outputs)
    scored_.push_back(outputs.empty() || std::find(outputs.begin(), outputs.end(), o.name) != outputs.end());
  for (const auto& name : outputs)
    if (std::none_of(graph_outputs.begin(), graph_outputs.end(), [&](const ValueInfo& v) { return v.name == name; }))
      fail("--accuracyOutputs: the model has no output named '{}'", name);
  Session fp(std::make_shared<const Model>(float_model), session_);
  size_t label_row = 0;
  int64_t hits = 0;
  for (size_t s = 0; s < samples_.count(); ++s) {
    auto outs = run_sample(fp, samples_, s);
    std::vector<Tensor> keep;
    for (size_t o = 0; o < outs.size(); ++o) {
      const bool scored = o < scored_.size() && scored_[o] && is_float_tensor(outs[o]);
      keep.push_back(scored ? outs[o].tensor : Tensor());
      if (!class_output_ && scored && analysis::classification_layout(outs[o].tensor)) class_output_ = o;
    }
    if (metric_ == AccuracyMetric::Top1 && labels_ && class_output_) {
      const Tensor& t = keep[*class_output_];
      const auto arg = analysis::row_argmax(t, *analysis::classification_layout(t));
      for (int64_t a : arg) {
        if (label_row >= labels_->size())
          fail("--labels holds {} labels, fewer than the rows of class scores the samples produce", labels_->size());
        hits += a == (*labels_)[label_row++];
      }
    }
    reference_.push_back(std::move(keep));
  }
  if (metric_ == AccuracyMetric::Top1 && !class_output_)
    fail("--accuracyMetric top1: no output of the model looks like class scores (rank 1 or 2 once size-1 dims are "
         "dropped); use cosine or psnr");
  if (labels_ && metric_ == AccuracyMetric::Top1) {
    if (label_row != labels_->size())
      fail("--labels holds {} labels but the samples produce {} rows of class scores", labels_->size(), label_row);
    float_accuracy_ = label_row ? double(hits) / double(label_row) : 0;
  }
}

AccuracyScore AccuracyProbe::score(const Model& candidate) const {
  Session q(std::make_shared<const Model>(candidate), session_);
  const size_t outputs = reference_.empty() ? 0 : reference_[0].size();
  std::vector<double> cos_sum(outputs, 0), psnr_sum(outputs, 0);
  std::vector<size_t> n(outputs, 0);
  AccuracyScore r;
  int64_t rows = 0, agree = 0, hits = 0;
  size_t label_row = 0;
  for (size_t s = 0; s < samples_.count(); ++s) {
    const auto outs = run_sample(q, samples_, s);
    for (size_t o = 0; o < outputs && o < outs.size(); ++o) {
      const Tensor& ref = reference_[s][o];
      if (ref.numel() == 0 || !outs[o].is_tensor()) continue;
      const auto m = analysis::compare_tensors(outs[o].tensor, ref, {});
      if (!m.comparable) continue;
      cos_sum[o] += m.cosine;
      psnr_sum[o] += std::min(m.psnr, 200.0);
      ++n[o];
      r.min_cosine = std::min(r.min_cosine, m.cosine);
      if (class_output_ && o == *class_output_) {
        const auto layout = analysis::classification_layout(ref);
        const auto a = analysis::row_argmax(outs[o].tensor, *layout), b = analysis::row_argmax(ref, *layout);
        for (size_t k = 0; k < a.size(); ++k) {
          agree += a[k] == b[k];
          if (labels_ && label_row < labels_->size()) hits += a[k] == (*labels_)[label_row++];
        }
        rows += int64_t(a.size());
      }
    }
  }
  r.mean_cosine = 1;
  r.mean_psnr = 200;
  for (size_t o = 0; o < outputs; ++o) {
    if (!n[o]) continue;
    r.mean_cosine = std::min(r.mean_cosine, cos_sum[o] / double(n[o]));
    r.mean_psnr = std::min(r.mean_psnr, psnr_sum[o] / double(n[o]));
  }
  if (class_output_ && rows) {
    if (labels_) {
      r.top1 = double(hits) / double(rows);
      r.float_top1 = float_accuracy_;
    } else {
      r.top1 = double(agree) / double(rows);
    }
  }
  switch (metric_) {
    case AccuracyMetric::Cosine: r.loss = std::max(0.0, 1 - r.mean_cosine); break;
    case AccuracyMetric::Psnr: r.loss = std::max(0.0, kPsnrLossReferenceDb - r.mean_psnr); break;
    case AccuracyMetric::Top1:
      r.loss = labels_ ? std::max(0.0, 100 * (float_accuracy_ - r.top1.value_or(0))) : 100 * (1 - r.top1.value_or(0));
      break;
  }
  return r;
}

}  // namespace ms::quant
