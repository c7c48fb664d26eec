#include "report/quant_report.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "report/atomic_file.h"
#include "report/html.h"

namespace ms::report {
namespace {

using nlohmann::json;

json number(double v) {  // JSON has no infinities or NaN
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

template <typename T>
json optional(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string num(double v, int digits = 6) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}g}", v, digits);
}

std::string percent(double v) { return std::isnan(v) ? "-" : fmt::format("{:.4f}%", 100 * v); }

std::string mib(uint64_t b) { return fmt::format("{:.2f} MiB", double(b) / 1048576.0); }

}  // namespace

json quant_report_json(const QuantReport& r) {
  json j;
  j["model"] = r.model_file;
  j["output"] = r.output_file;
  j["quant_type"] = r.quant_type;
  j["calib_method"] = r.calib_method;
  j["calibration_samples"] = r.calibration_samples;
  j["evaluation"] = {{"file", r.evaluation_file}, {"samples", r.evaluation_samples}, {"metric", r.metric}};
  j["loss"] = {{"budget", optional(r.budget)},
               {"all_quantized", optional(r.loss_all_quantized)},
               {"final", number(r.loss_final)},
               {"budget_met", r.budget_met}};
  j["final"] = {{"mean_cosine", number(r.mean_cosine)}, {"min_cosine", number(r.min_cosine)},
                {"mean_psnr_db", number(r.mean_psnr)}, {"top1", optional(r.top1)}};
  j["size"] = {{"file_before", r.size_before}, {"file_after", r.size_after},
               {"weights_before", r.weight_bytes_before}, {"weights_after", r.weight_bytes_after}};
  json steps = json::array();
  for (const auto& s : r.fallback_steps) steps.push_back({{"reverted", s.reverted}, {"loss", number(s.loss)}});
  j["fallback_steps"] = steps;
  json layers = json::array();
  for (const auto& l : r.layers) {
    json e = {{"node", l.node}, {"op", l.op}, {"precision", l.precision}};
    if (!l.why_float.empty()) e["why_float"] = l.why_float;
    if (l.weight_scale_min) e["weight"] = {{"channels", l.weight_channels}, {"scale_min", *l.weight_scale_min}, {"scale_max", *l.weight_scale_max}};
    json acts = json::array();
    for (const auto& a : l.activations)
      acts.push_back({{"tensor", a.tensor}, {"dtype", a.dtype}, {"scale", number(a.scale)}, {"zero_point", a.zero_point},
                      {"range", {number(a.lo), number(a.hi)}}, {"observed", {number(a.observed_lo), number(a.observed_hi)}},
                      {"clipping_ratio", number(a.clipping_ratio)}, {"overflow_rate", number(a.overflow_rate)}});
    e["activations"] = acts;
    e["sensitivity"] = optional(l.sensitivity);
    e["sensitivity_rank"] = optional(l.sensitivity_rank);
    e["bias_shift"] = optional(l.bias_shift);
    e["rounding"] = l.rounding;
    e["gptq_error_ratio"] = optional(l.gptq_error_ratio);
    layers.push_back(e);
  }
  j["layers"] = layers;
  return j;
}

std::string quant_report_html(const QuantReport& r) {
  std::string b;
  std::vector<std::vector<std::string>> summary = {
      {"model", r.model_file},
      {"output", r.output_file},
      {"quantization", r.quant_type + ", " + r.calib_method},
      {"calibration samples", std::to_string(r.calibration_samples)},
      {"evaluation", fmt::format("{} sample(s) of {}, metric {}", r.evaluation_samples, r.evaluation_file, r.metric)},
      {"loss, all layers quantized", r.loss_all_quantized ? num(*r.loss_all_quantized) : "-"},
      {"loss, final", num(r.loss_final)},
      {"budget (--maxAccuracyLoss)", r.budget ? num(*r.budget) + (r.budget_met ? " (met)" : " (NOT met)") : "-"},
      {"output cosine (mean / min)", fmt::format("{:.6f} / {:.6f}", r.mean_cosine, r.min_cosine)},
      {"output PSNR (mean)", fmt::format("{:.2f} dB", r.mean_psnr)},
      {"file size", fmt::format("{} -> {}", mib(r.size_before), mib(r.size_after))},
      {"weights quantized", fmt::format("{} -> {}", mib(r.weight_bytes_before), mib(r.weight_bytes_after))},
  };
  if (r.top1) summary.push_back({"top-1", fmt::format("{:.4f}", *r.top1)});
  b += "<h2>Summary</h2>" + html_table({"", ""}, summary);
  if (!r.fallback_steps.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : r.fallback_steps) rows.push_back({std::to_string(s.reverted), num(s.loss)});
    b += "<h2>Fallback search</h2><p>Loss with the k most sensitive layers kept float, in the order measured.</p>" +
         html_table({"layers kept float", "loss"}, rows);
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const auto& l : r.layers) {
    std::string act, clip, over;
    for (const auto& a : l.activations) {
      act += fmt::format("{} {} s={} zp={} [{}, {}] ", a.tensor, a.dtype, num(a.scale, 4), a.zero_point, num(a.lo, 4), num(a.hi, 4));
      clip += percent(a.clipping_ratio) + " ";
      over += percent(a.overflow_rate) + " ";
    }
    rows.push_back({l.node, l.op, l.precision,
                    l.weight_scale_min ? fmt::format("{} ch, {} .. {}", l.weight_channels, num(*l.weight_scale_min, 4), num(*l.weight_scale_max, 4)) : "-",
                    act.empty() ? "-" : act, clip.empty() ? "-" : clip, over.empty() ? "-" : over,
                    l.sensitivity ? num(*l.sensitivity, 4) : "-", l.sensitivity_rank ? std::to_string(*l.sensitivity_rank) : "-",
                    l.bias_shift ? num(*l.bias_shift, 4) : "-", l.gptq_error_ratio ? l.rounding + ", " + num(*l.gptq_error_ratio, 3) + "x" : l.rounding,
                    l.why_float.empty() ? "-" : l.why_float});
    classes.push_back(l.precision == "float" ? "fail" : "");
  }
  b += "<h2>Layers</h2>" + html_table({"node", "op", "precision", "weight scales", "activation params", "clipping ratio",
                                       "overflow rate", "sensitivity (loss alone)", "rank", "bias shift",
                                       "rounding (output error vs nearest)", "why float"},
                                      rows, classes);
  return html_page("ms quant: " + r.model_file, b);
}

void write_quant_report(const QuantReport& r, const std::string& path) {
  const bool json_out = std::filesystem::path(path).extension() == ".json";
  write_file_atomically(path, json_out ? quant_report_json(r).dump(2) + "\n" : quant_report_html(r));
}

}  // namespace ms::report
