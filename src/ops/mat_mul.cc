// MatMul: numpy matmul, y[..., m, n] = sum_k a[..., m, k] * b[..., k, n] with broadcast batch
// dims; a 1-D a is a row vector and a 1-D b a column vector (the added dim is removed again).
#include "ops/reduce_util.h"

namespace ms {
namespace {

void infer_matmul(InferContext& ctx) {
  const TypeInfo& a = ctx.input_type(0);
  const TypeInfo& b = ctx.input_type(1);
  if (!a.shape || !b.shape) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(a.dtype));
    return;
  }
  auto da = *a.shape, db = *b.shape;
  if (da.empty() || db.empty()) fail("{}: MatMul inputs must have rank >= 1", ctx.node().label());
  const bool a1 = da.size() == 1, b1 = db.size() == 1;
  if (a1) da.insert(da.begin(), Dim::fixed(1));
  if (b1) db.push_back(Dim::fixed(1));
  const Dim &k1 = da.back(), &k2 = db[db.size() - 2];
  if (k1.is_static() && k2.is_static() && k1.value != k2.value)
    fail("{}: inner dimensions {} and {} differ", ctx.node().label(), k1.value, k2.value);
  std::vector<Dim> out = broadcast_dims({std::vector<Dim>(da.begin(), da.end() - 2), std::vector<Dim>(db.begin(), db.end() - 2)}, ctx.node());
  if (!a1) out.push_back(da[da.size() - 2]);
  if (!b1) out.push_back(db.back());
  ctx.set_output_type(0, TypeInfo::tensor(a.dtype, out));
}

}  // namespace

void register_op_mat_mul(OpRegistry& r) {
  r.add(OpDef("MatMul").trait(kTraitHalfCompute)
            .inputs(2)
            .outputs(1)
            .infer_fn(infer_matmul)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& a = ctx.input(0);
              const Tensor& b = ctx.input(1);
              if (a.dtype() != b.dtype())
                fail("{}: input dtypes differ ({} vs {})", ctx.node().label(), dtype_name(a.dtype()), dtype_name(b.dtype()));
              if (a.rank() == 0 || b.rank() == 0) fail("{}: MatMul inputs must have rank >= 1", ctx.node().label());
              Shape sa = a.shape(), sb = b.shape();
              const bool a1 = sa.size() == 1, b1 = sb.size() == 1;
              if (a1) sa.insert(sa.begin(), 1);
              if (b1) sb.push_back(1);
              const int64_t M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
              if (sb[sb.size() - 2] != K)
                fail("{}: shapes {} and {} are not aligned for matmul", ctx.node().label(), shape_str(a.shape()), shape_str(b.shape()));
              Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
              Shape batch = broadcast_shapes({ba, bb}, ctx.node());
              auto oa = broadcast_offsets(ba, batch), ob = broadcast_offsets(bb, batch);
              Shape out_shape = batch;
              if (!a1) out_shape.push_back(M);
              if (!b1) out_shape.push_back(N);
              Tensor y(a.dtype(), out_shape);
              const int64_t nb = shape_numel(batch);
              dispatch_all_numeric(a.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                using A = acc_t<T>;
                const T* pa = a.data<T>();
                const T* pb = b.data<T>();
                T* py = y.data<T>();
                std::vector<A> acc(N);
                for (int64_t bi = 0; bi < nb; ++bi) {
                  const T* ma = pa + oa[bi] * M * K;
                  const T* mb = pb + ob[bi] * K * N;
                  for (int64_t m = 0; m < M; ++m) {
                    std::fill(acc.begin(), acc.end(), A(0));
                    for (int64_t k = 0; k < K; ++k) {
                      const A av = to_acc<A>(ma[m * K + k]);
                      const T* row = mb + k * N;
                      for (int64_t n = 0; n < N; ++n) acc[n] += av * to_acc<A>(row[n]);
                    }
                    for (int64_t n = 0; n < N; ++n) py[(bi * M + m) * N + n] = from_acc<T>(acc[n]);
                  }
                }
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
