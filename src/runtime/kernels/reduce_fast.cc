// ReduceSum, ReduceMean, ReduceMax and ReduceMin on float32 when the reduced axes are consecutive
// (the last axes, all of them, or a block in the middle: the shape is then [outer, reduced,
// inner]). Each output accumulates its elements in memory order in double, as the reference
// does, so both give the same bits; the outer x inner outputs are spread over the threads.
#include <algorithm>
#include <limits>

#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

enum class Reduction { Sum, Mean, Max, Min };

class FastReduce : public FastKernel {
 public:
  FastReduce(Reduction op, std::vector<int64_t> axes, bool keepdims) : op_(op), axes_(std::move(axes)), keepdims_(keepdims) {}
  const char* name() const override { return "reduce_fast"; }

  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    if (x.dtype() != DType::Float32 || x.numel() == 0) return false;
    std::vector<int64_t> axes = axes_;
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    for (auto& a : axes) {
      if (a < -rank || a >= rank) return false;  // the reference names the bad axis
      if (a < 0) a += rank;
    }
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return false;
    if (axes.back() - axes.front() + 1 != static_cast<int64_t>(axes.size())) return false;  // not consecutive
    int64_t outer = 1, count = 1, inner = 1;
    Shape out;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = x.dim(d);
      const bool reduced = d >= axes.front() && d <= axes.back();
      (d < axes.front() ? outer : reduced ? count : inner) *= n;
      if (!reduced) out.push_back(n);
      else if (keepdims_) out.push_back(1);
    }
    Tensor y = output_tensor(memory, 0, DType::Float32, out);
    const float* px = x.data<float>();
    float* py = y.data<float>();
    const Reduction op = op_;
    parallel_chunks(outer * inner, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        const int64_t o = k / inner, i = k % inner;
        const float* src = px + o * count * inner + i;
        double acc = op == Reduction::Max   ? -std::numeric_limits<double>::infinity()
                     : op == Reduction::Min ? std::numeric_limits<double>::infinity()
                                            : 0.0;
        for (int64_t r = 0; r < count; ++r) {
          const double v = src[r * inner];
          if (op == Reduction::Max) acc = (v > acc || v != v) ? v : acc;
          else if (op == Reduction::Min) acc = (v < acc || v != v) ? v : acc;
          else acc += v;
        }
        if (op == Reduction::Mean) acc /= static_cast<double>(count);
        py[k] = static_cast<float>(acc);
      }
    }, count);
    ctx.set_output(0, std::move(y));
    return true;
  }

 private:
  Reduction op_;
  std::vector<int64_t> axes_;  // empty: all
  bool keepdims_;
};

FastKernelFactory factory(Reduction op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    if (!info.maybe_f32(0)) return nullptr;
    AttrReader a = info.attrs();
    std::vector<int64_t> axes;
    if (info.has_input(1)) {
      const Tensor* t = info.constant(1);
      if (!t) return nullptr;
      axes = t->to_int64_vector();
    } else if (info.node.attr("axes")) {
      axes = a.attr_ints("axes");
    }
    // Empty axes with noop_with_empty_axes is the identity; the reference handles it.
    if (axes.empty() && a.attr_int("noop_with_empty_axes")) return nullptr;
    return std::make_unique<FastReduce>(op, std::move(axes), a.attr_int("keepdims") != 0);
  };
}

}  // namespace

void register_reduce_kernels(FastKernelRegistry& r) {
  r.add("", "ReduceSum", factory(Reduction::Sum));
  r.add("", "ReduceMean", factory(Reduction::Mean));
  r.add("", "ReduceMax", factory(Reduction::Max));
  r.add("", "ReduceMin", factory(Reduction::Min));
}

}  // namespace ms::rt
