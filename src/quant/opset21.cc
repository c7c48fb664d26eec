#include "quant/opset21.h"

#include <set>

#include "quant/fresh_names.h"

namespace ms::quant {
namespace {

// Reduce* other than ReduceSum (which moved at 13) take axes as an input from opset 18.
const std::set<std::string> kReduceAxesToInput = {"ReduceL1",  "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                                                  "ReduceMean", "ReduceMin", "ReduceProd",   "ReduceSumSquare"};

class Raiser {
 public:
  Raiser(int64_t from, const std::string& file, Names& names) : from_(from), file_(file), names_(names) {}
  size_t rewritten = 0;

  void run(Graph& g) {
    for (auto& n : g.nodes) {
      for (auto& [k, a] : n.attrs) {
        if (a.g) run(*a.g);
        for (auto& sg : a.graphs) run(*sg);
      }
      if (n.domain.empty()) rewrite(g, n);
    }
  }

 private:
  void rewrite(Graph& g, Node& n) {
    if (from_ < 18 && kReduceAxesToInput.count(n.op_type)) {
      auto it = n.attrs.find("axes");
      if (it == n.attrs.end()) return;  // no axes: all of them, in both forms
      const std::string name = names_.fresh(n.name + "_axes");
      g.initializers[name] = Tensor::from_vector<int64_t>(it->second.ints, {int64_t(it->second.ints.size())});
      n.attrs.erase(it);
      n.inputs.resize(1);
      n.inputs.push_back(name);
      ++rewritten;
    } else if (from_ < 18 && n.op_type == "Split") {
      // Split-18 needs the `split` input or num_outputs; without either, 13 split evenly.
      if ((n.inputs.size() < 2 || n.inputs[1].empty()) && !n.attrs.count("num_outputs")) {
        n.attrs["num_outputs"] = Attribute::of_int(int64_t(n.outputs.size()));
        ++rewritten;
      }
    } else if (from_ < 16 && n.op_type == "RoiAlign") {
      // RoiAlign-16 changed the default coordinate_transformation_mode to half_pixel.
      if (!n.attrs.count("coordinate_transformation_mode")) {
        n.attrs["coordinate_transformation_mode"] = Attribute::of_string("output_half_pixel");
        ++rewritten;
      }
    } else if (from_ < 20 && n.op_type == "GridSample") {
      // GridSample-20 renamed the modes.
      if (auto it = n.attrs.find("mode"); it != n.attrs.end() && (it->second.s == "bilinear" || it->second.s == "bicubic")) {
        it->second.s = it->second.s == "bilinear" ? "linear" : "cubic";
        ++rewritten;
      }
    } else if ((from_ < 20 && n.op_type == "DFT") || (from_ < 21 && n.op_type == "GroupNormalization")) {
      fail_unsupported("{}: node {} ({}) changed meaning between opset {} and 21, which 4-bit weights need (blocked "
                       "DequantizeLinear); quantize this model with --bitNum 8",
                       file_, n.name, n.op_type, from_);
    }
  }

  int64_t from_;
  std::string file_;
  Names& names_;
};

}  // namespace

size_t raise_opset_to_21(Model& m) {
  const int64_t from = m.opset();
  if (from >= 21) return 0;
  if (from < 13) fail_unsupported("{}: raising opset {} to 21 is not supported; convert the model to opset 13 first", m.source_path, from);
  Names names(m.graph);
  Raiser r(from, m.source_path, names);
  r.run(m.graph);
  m.opsets[""] = 21;
  m.ir_version = std::max<int64_t>(m.ir_version, 10);  // int4 tensors are IR version 10
  return r.rewritten;
}

}  // namespace ms::quant
