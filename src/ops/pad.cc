// Pad: y = x padded by pads = [begin_0.., end_0..] on the given axes; the new elements are
// constant_value (constant), mirrored without the edge (reflect), the edge (edge) or wrapped (wrap).
// Negative pads crop.
#include "ops/shape_ops_util.h"

namespace ms {
namespace {

// Per-axis (begin, end) pads for a rank; nullopt in inference when not constant.
template <class Ctx>
std::optional<std::vector<std::pair<int64_t, int64_t>>> pad_amounts(const Ctx& ctx, int64_t rank) {
  std::optional<std::vector<int64_t>> pads, axes;
  if constexpr (std::is_same_v<Ctx, InferContext>) {
    bool u1 = false, u2 = false;
    pads = ints_input_or_attr(ctx, 1, "pads", &u1);
    axes = ints_input_or_attr(ctx, 3, "", &u2);
    if (u1 || u2) return std::nullopt;
  } else {
    pads = ints_input_or_attr(ctx, 1, "pads");
    axes = ints_input_or_attr(ctx, 3, "");
  }
  if (!pads && ctx.has_attr("paddings")) pads = ctx.attr_ints("paddings");
  if (!pads) fail("{}: pads are required", ctx.node().label());
  std::vector<int64_t> ax;
  if (axes) {
    for (int64_t a : *axes) ax.push_back(axis_index(a, rank, ctx.node()));
  } else {
    for (int64_t a = 0; a < rank; ++a) ax.push_back(a);
  }
  const size_t n = ax.size();
  if (pads->size() != 2 * n) fail("{}: {} pads for {} axes", ctx.node().label(), pads->size(), n);
  std::vector<std::pair<int64_t, int64_t>> out(static_cast<size_t>(rank), {0, 0});
  for (size_t i = 0; i < n; ++i) out[ax[i]] = {(*pads)[i], (*pads)[n + i]};
  return out;
}

// Source index along one axis for output position o, or -1 for the constant.
int64_t pad_source(int64_t o, int64_t begin, int64_t n, const std::string& mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") return ((i % n) + n) % n;
  if (n == 1) return 0;  // reflect
  const int64_t period = 2 * (n - 1);
  i = ((i % period) + period) % period;
  return i < n ? i : period - i;
}

}  // namespace

void register_op_pad(OpRegistry& r) {
  r.add(OpDef("Pad").trait(kTraitHalfCompute)
            .inputs(1, 4)
            .outputs(1)
            .attr_string("mode", "constant")
            .attr("pads", AttrType::Ints, false)
            .attr("paddings", AttrType::Ints, false)
            .attr_float("value", 0.0f)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              if (!x.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(x.dtype));
                return;
              }
              std::vector<Dim> out = *x.shape;
              auto pads = pad_amounts(ctx, static_cast<int64_t>(out.size()));
              for (size_t d = 0; d < out.size(); ++d) {
                if (!pads || !out[d].is_static())
                  out[d] = (pads && (*pads)[d] == std::pair<int64_t, int64_t>{0, 0}) ? out[d] : Dim{};
                else {
                  int64_t v = 0;
                  bool over = __builtin_add_overflow(out[d].value, (*pads)[d].first, &v) ||
                              __builtin_add_overflow(v, (*pads)[d].second, &v);
                  out[d] = over || v < 0 ? Dim{} : Dim::fixed(v);  // invalid pads are the kernel's error
                }
              }
              ctx.set_output_type(0, TypeInfo::tensor(x.dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const std::string label = ctx.node().label();
              const std::string& mode = ctx.attr_string("mode");
              if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
                fail_unsupported("{}: pad mode '{}' is not supported", label, mode);
              auto pads = *pad_amounts(ctx, x.rank());
              Tensor fill;
              if (mode == "constant") {
                if (ctx.has_input(2)) {
                  fill = ctx.input(2);
                  if (fill.dtype() != x.dtype() || fill.numel() != 1)
                    fail("{}: constant_value must be one {} element", label, dtype_name(x.dtype()));
                } else if (x.dtype() != DType::String) {
                  fill = scalar_of_dtype(x.dtype(), ctx.attr_float("value"));
                }
              }
              Shape out = x.shape();
              for (int d = 0; d < x.rank(); ++d) {
                auto [b, e] = pads[d];
                const int64_t lim = int64_t{1} << 40;
                if (b < -lim || b > lim || e < -lim || e > lim) fail("{}: pads {},{} are out of range", label, b, e);
                out[d] += b + e;
              }
              check_output_shape(out, ctx.node());
              const auto st = strides_of(x.shape());
              std::vector<std::vector<int64_t>> maps(x.rank());
              for (int d = 0; d < x.rank(); ++d) {
                const int64_t n = x.shape()[d];
                auto [b, e] = pads[d];
                const int64_t size = n + b + e;
                if (size < 0) fail("{}: pads {},{} remove more than the {} elements of axis {}", label, b, e, n, d);
                if (n == 0 && size > 0 && mode != "constant")
                  fail("{}: cannot {}-pad an empty axis {}", label, mode, d);
                for (int64_t o = 0; o < size; ++o) {
                  int64_t i = pad_source(o, b, n, mode);
                  maps[d].push_back(i < 0 ? -1 : i * st[d]);
                }
              }
              ctx.set_output(0, gather_by_axis_offsets(x, maps, fill.defined() ? &fill : nullptr));
            }));
}

}  // namespace ms
