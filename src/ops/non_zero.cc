// NonZero: y[:, j] = the index (one row per dim) of the j-th non-zero element of x, row-major order.
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_non_zero(OpRegistry& r) {
  r.add(OpDef("NonZero")
            .inputs(1)
            .outputs(1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& x = ctx.input_type(0);
              Dim rank = x.shape ? Dim::fixed(static_cast<int64_t>(x.shape->size())) : Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(DType::Int64, std::vector<Dim>{rank, Dim{}}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.dtype() == DType::String) fail_unsupported("{}: string input is not supported", ctx.node().label());
              std::vector<int64_t> hits;
              for (int64_t i = 0; i < x.numel(); ++i)
                if (x.as_double(i) != 0) hits.push_back(i);
              const int64_t n = static_cast<int64_t>(hits.size());
              Tensor y(DType::Int64, {x.rank(), n});
              int64_t* out = y.data<int64_t>();
              const auto st = strides_of(x.shape());
              for (int64_t j = 0; j < n; ++j)
                for (int d = 0; d < x.rank(); ++d) out[d * n + j] = (hits[j] / st[d]) % x.shape()[d];
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
