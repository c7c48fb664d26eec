// Reshape, Squeeze, Unsqueeze, Flatten and Identity as views: the output is the input's storage
// under the new shape, nothing is copied. Attributes are read once, when the node is compiled; the
// run only computes the shape. Bad axes or a squeezed dim that is not 1 are declined so that the
// reference reports them; Reshape shares the reference's shape rule (reshape_target).
//
// Sharing is safe because nothing writes into a tensor it did not allocate: the arena copies a view
// of an arena value into the view's own slot unless its plan lets the two share bytes
// (ActivationArena::settle_output), and the session hands a caller its own copy of an output that
// shares bytes with an initializer, a Constant or a graph input (session.cc).
#include "ops/shape_ops_util.h"
#include "runtime/kernels/fast_kernel.h"

namespace ms::rt {
namespace {

enum class ViewOp { Reshape, Squeeze, Unsqueeze, Flatten, Identity };

// A list of int64 values: a tensor input's elements, or an attribute's.
struct Ints {
  const int64_t* p = nullptr;
  int64_t n = 0;
};

class FastView : public FastKernel {
 public:
  FastView(ViewOp op, const KernelBuildInfo& info) : op_(op) {
    const AttrReader a = info.attrs();
    if (op == ViewOp::Reshape) allowzero_ = a.attr_int("allowzero") != 0;
    if (op == ViewOp::Flatten) axis_ = a.attr_int("axis");
    if ((op == ViewOp::Squeeze || op == ViewOp::Unsqueeze) && a.has_attr("axes")) {
      attr_axes_ = a.attr_ints("axes");
      has_attr_axes_ = true;
    }
  }
  const char* name() const override { return "view"; }

  bool run(KernelContext& ctx, KernelMemory&) override {
    const Value& v = ctx.input_value(0);
    if (op_ == ViewOp::Identity) {
      ctx.set_output_value(0, v);
      return true;
    }
    if (!v.is_tensor() || !v.tensor.defined()) return false;
    const Tensor& x = v.tensor;
    Shape out;
    bool ok = false;
    switch (op_) {
      case ViewOp::Reshape: ok = reshape(ctx, x.shape(), out); break;
      case ViewOp::Squeeze: ok = squeeze(ctx, x.shape(), out); break;
      case ViewOp::Unsqueeze: ok = unsqueeze(ctx, x.shape(), out); break;
      case ViewOp::Flatten: ok = flatten(x.shape(), out); break;
      case ViewOp::Identity: break;
    }
    if (!ok) return false;
    ctx.set_output(0, x.reshaped(std::move(out)));
    return true;
  }

 private:
  // Input i as int64 values, else the attribute's; false when neither (or not int64).
  bool ints(const KernelContext& ctx, size_t i, Ints& out) const {
    if (ctx.has_input(i)) {
      const Value& v = ctx.input_value(i);
      if (!v.is_tensor() || v.tensor.dtype() != DType::Int64 || v.tensor.rank() > 1) return false;
      out = {v.tensor.data<int64_t>(), v.tensor.numel()};
      return true;
    }
    if (!has_attr_axes_) return false;
    out = {attr_axes_.data(), static_cast<int64_t>(attr_axes_.size())};
    return true;
  }

  // Normalizes axis a of a rank; false when out of range or already in `seen` (a bit mask).
  static bool take_axis(int64_t a, int64_t rank, uint64_t& seen, int64_t& axis) {
    if (a < -rank || a >= rank || rank > 64) return false;
    axis = a < 0 ? a + rank : a;
    if (seen >> axis & 1) return false;
    seen |= uint64_t{1} << axis;
    return true;
  }

  // A shape that does not fit fails as on the reference, naming the node.
  bool reshape(const KernelContext& ctx, const Shape& in, Shape& out) const {
    if (!ctx.has_input(1)) return false;  // opset 1's shape attribute: the reference
    Ints spec;
    if (!ints(ctx, 1, spec)) return false;
    out = reshape_target(in, std::vector<int64_t>(spec.p, spec.p + spec.n), allowzero_, ctx.node());
    return true;
  }

  bool squeeze(const KernelContext& ctx, const Shape& in, Shape& out) const {
    const int64_t rank = static_cast<int64_t>(in.size());
    uint64_t drop = 0;
    Ints axes;
    if (ints(ctx, 1, axes)) {
      if (rank == 0 && axes.n > 0) return false;
      for (int64_t i = 0; i < axes.n; ++i) {
        int64_t ax = 0;
        if (!take_axis(axes.p[i], rank, drop, ax) || in[ax] != 1) return false;
      }
    } else if (ctx.has_input(1)) {
      return false;  // axes of another dtype: the reference
    } else {
      if (rank > 64) return false;
      for (int64_t d = 0; d < rank; ++d)
        if (in[d] == 1) drop |= uint64_t{1} << d;
    }
    out.reserve(in.size());
    for (int64_t d = 0; d < rank; ++d)
      if (!(drop >> d & 1)) out.push_back(in[d]);
    return true;
  }

  bool unsqueeze(const KernelContext& ctx, const Shape& in, Shape& out) const {
    Ints axes;
    if (!ints(ctx, 1, axes)) return false;
    const int64_t rank = static_cast<int64_t>(in.size()) + axes.n;
    uint64_t inserted = 0;
    for (int64_t i = 0; i < axes.n; ++i) {
      int64_t ax = 0;
      if (!take_axis(axes.p[i], rank, inserted, ax)) return false;
    }
    out.resize(static_cast<size_t>(rank));
    size_t k = 0;
    for (int64_t d = 0; d < rank; ++d) out[d] = (inserted >> d & 1) ? 1 : in[k++];
    return true;
  }

  bool flatten(const Shape& in, Shape& out) const {
    const int64_t rank = static_cast<int64_t>(in.size());
    if (axis_ < -rank || axis_ > rank) return false;
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[d];
    out = {outer, inner};
    return true;
  }

  ViewOp op_;
  bool allowzero_ = false;
  int64_t axis_ = 1;
  std::vector<int64_t> attr_axes_;
  bool has_attr_axes_ = false;
};

FastKernelFactory factory(ViewOp op) {
  return [op](const KernelBuildInfo& info) -> std::unique_ptr<FastKernel> {
    return std::make_unique<FastView>(op, info);
  };
}

}  // namespace

void register_view_kernels(FastKernelRegistry& r) {
  r.add("", "Reshape", factory(ViewOp::Reshape));
  r.add("", "Squeeze", factory(ViewOp::Squeeze));
  r.add("", "Unsqueeze", factory(ViewOp::Unsqueeze));
  r.add("", "Flatten", factory(ViewOp::Flatten));
  r.add("", "Identity", factory(ViewOp::Identity));
}

}  // namespace ms::rt
