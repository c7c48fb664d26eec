#include "quant/zero_input_probe.h"

namespace ms::quant {

std::optional<analysis::InputSamples> zero_input_probe(const Graph& g) {
  std::vector<analysis::InputSamples::Column> columns;
  for (const auto& in : analysis::required_inputs(g)) {
    if (in.type.kind != TypeInfo::Kind::Tensor || in.type.dtype != DType::Float32 || !in.type.shape) return std::nullopt;
    Shape shape;
    for (const Dim& d : *in.type.shape) shape.push_back(d.is_static() ? d.value : shape.empty() ? 1 : kProbeDim);
    columns.push_back(analysis::InputSamples::Column::single(Value(Tensor(DType::Float32, shape)),
                                                             "zeros for '" + in.name + "'"));
  }
  return analysis::InputSamples(std::move(columns));
}

}  // namespace ms::quant
