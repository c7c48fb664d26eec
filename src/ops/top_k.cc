// TopK: the k largest (or smallest) elements of x along `axis` and their int64 indices,
// ordered by value; equal values keep the lower index first.
#include <numeric>

#include "ops/reduce_util.h"

namespace ms {
namespace {

std::optional<int64_t> k_of(const AttrReader& ctx, bool has_k_input, const Tensor* k_input) {
  if (has_k_input) {
    if (!k_input) return std::nullopt;
    if (k_input->numel() != 1) fail("{}: K must hold one value, got shape {}", ctx.node().label(), shape_str(k_input->shape()));
    return k_input->as_int64(0);
  }
  if (!ctx.has_attr("k")) fail("{}: K is missing (neither input nor attribute)", ctx.node().label());
  return ctx.attr_int("k");
}

}  // namespace

void register_op_top_k(OpRegistry& r) {
  r.add(OpDef("TopK")
            .inputs(1, 2)
            .outputs(2)
            .attr_int("axis", -1)
            .attr_int("largest", 1)
            .attr_int("sorted", 1)
            .attr("k", AttrType::Int, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (!t.shape) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.dtype));
                ctx.set_output_type(1, TypeInfo::tensor_unknown_shape(DType::Int64));
                return;
              }
              auto dims = *t.shape;
              int64_t axis = normalize_axis(ctx.attr_int("axis"), static_cast<int64_t>(dims.size()), ctx.node());
              auto k = k_of(ctx, ctx.has_input(1), ctx.input_constant(1));
              dims[axis] = k ? Dim::fixed(*k) : Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(t.dtype, dims));
              ctx.set_output_type(1, TypeInfo::tensor(DType::Int64, dims));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() == 0) fail("{}: input must have rank >= 1", ctx.node().label());
              const int64_t axis = normalize_axis(ctx.attr_int("axis"), x.rank(), ctx.node());
              const int64_t k = *k_of(ctx, ctx.has_input(1), ctx.has_input(1) ? &ctx.input(1) : nullptr);
              const int64_t outer = dims_product(x.shape(), 0, axis), n = x.dim(axis),
                            inner = dims_product(x.shape(), axis + 1, x.rank());
              if (k < 0 || k > n) fail("{}: k = {} is out of range for axis of size {}", ctx.node().label(), k, n);
              const bool largest = ctx.attr_int("largest") != 0;
              Shape out_shape = x.shape();
              out_shape[axis] = k;
              Tensor values(x.dtype(), out_shape), indices(DType::Int64, out_shape);
              int64_t* oi = indices.data<int64_t>();
              dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                using A = acc_t<T>;
                const T* in = x.data<T>();
                T* ov = values.data<T>();
                std::vector<int64_t> idx(n);
                std::vector<A> v(n);
                for (int64_t o = 0; o < outer; ++o)
                  for (int64_t i = 0; i < inner; ++i) {
                    for (int64_t j = 0; j < n; ++j) v[j] = to_acc<A>(in[(o * n + j) * inner + i]);
                    std::iota(idx.begin(), idx.end(), 0);
                    auto cmp = [&](int64_t a, int64_t b) { return largest ? v[a] > v[b] : v[a] < v[b]; };
                    std::stable_sort(idx.begin(), idx.end(), cmp);
                    for (int64_t j = 0; j < k; ++j) {
                      int64_t off = (o * k + j) * inner + i;
                      ov[off] = in[(o * n + idx[j]) * inner + i];
                      oi[off] = idx[j];
                    }
                  }
              });
              ctx.set_output(0, std::move(values));
              ctx.set_output(1, std::move(indices));
            }));
}

}  // namespace ms
