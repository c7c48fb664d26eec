#include "analysis/tensor_capture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace ms::analysis {

Model expose_tensors(const Model& m, const std::vector<std::string>& names) {
  Model out = m;
  std::set<std::string> present;
  for (const auto& o : out.graph.outputs) present.insert(o.name);
  std::map<std::string, const TypeInfo*> known;
  for (const auto& v : out.graph.value_info) known[v.name] = &v.type;
  for (const auto& n : names) {
    if (!present.insert(n).second) continue;
    auto it = known.find(n);
    out.graph.outputs.push_back({n, it == known.end() ? TypeInfo{} : *it->second});
  }
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 0 when bit-identical; the largest difference otherwise (infinite when not comparable).
double tensor_change(const Tensor& x, const Tensor& y) {
  if (x.dtype() != y.dtype() || x.shape() != y.shape()) return kInf;
  if (x.dtype() == DType::String) {
    for (int64_t i = 0; i < x.numel(); ++i)
      if (x.data<std::string>()[i] != y.data<std::string>()[i]) return kInf;
    return 0;
  }
  if (x.nbytes() == 0 || std::memcmp(x.raw(), y.raw(), x.nbytes()) == 0) return 0;
  auto a = x.to_double_vector(), b = y.to_double_vector();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool same = a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]));
    worst = std::max(worst, same ? 0.0 : std::isfinite(a[i] - b[i]) ? std::abs(a[i] - b[i]) : kInf);
  }
  // Bits differ but values compare equal (-0 against +0, NaN payloads): still a change.
  return worst > 0 ? worst : std::numeric_limits<double>::denorm_min();
}

double value_change(const Value& x, const Value& y) {
  if (x.kind != y.kind) return kInf;
  if (x.is_tensor()) return tensor_change(x.tensor, y.tensor);
  if (!x.is_sequence()) return 0;
  if (x.sequence.size() != y.sequence.size()) return kInf;
  double worst = 0;
  for (size_t i = 0; i < x.sequence.size(); ++i) worst = std::max(worst, tensor_change(x.sequence[i], y.sequence[i]));
  return worst;
}

}  // namespace

std::vector<MarkingChange> output_changes(const std::vector<ValueInfo>& outputs, const std::vector<Value>& plain,
                                          const std::vector<Value>& exposed) {
  std::vector<MarkingChange> changes;
  for (size_t i = 0; i < plain.size() && i < outputs.size(); ++i) {
    double d = i < exposed.size() ? value_change(plain[i], exposed[i]) : kInf;
    if (d > 0) changes.push_back({outputs[i].name, d});
  }
  return changes;
}

TensorCapture::TensorCapture(const Model& m, const std::vector<std::string>& names, SessionOptions opts) {
  plain_ = std::make_unique<Session>(std::make_shared<const Model>(m), opts);
  if (!names.empty()) exposed_ = std::make_unique<Session>(std::make_shared<const Model>(expose_tensors(m, names)), opts);
}

Capture TensorCapture::run(const std::vector<Value>& feeds) const {
  Capture c;
  c.outputs = plain_->run(feeds);
  if (!exposed_) return c;
  auto values = exposed_->run(feeds);
  const auto& names = exposed_->outputs();
  for (size_t i = 0; i < values.size(); ++i) c.tensors[names[i].name] = values[i];
  values.resize(std::min(values.size(), c.outputs.size()));
  c.marking_changes = output_changes(plain_->outputs(), c.outputs, values);
  return c;
}

}  // namespace ms::analysis
