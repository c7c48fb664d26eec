// GatherElements: y[i] = x[i with i[axis] replaced by indices[i]] (y has the shape of indices).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_gather_elements(OpRegistry& r) {
  r.add(OpDef("GatherElements")
            .inputs(2)
            .outputs(1)
            .attr_int("axis", 0)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& idx = ctx.input_type(1);
              DType dt = ctx.input_type(0).dtype;
              ctx.set_output_type(0, idx.shape ? TypeInfo::tensor(dt, *idx.shape) : TypeInfo::tensor_unknown_shape(dt));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const Tensor& indices = ctx.input(1);
              const std::string label = ctx.node().label();
              if (x.rank() == 0 || indices.rank() != x.rank())
                fail("{}: data {} and indices {} must have the same rank >= 1", label, shape_str(x.shape()),
                     shape_str(indices.shape()));
              const int64_t axis = axis_index(ctx.attr_int("axis"), x.rank(), ctx.node());
              for (int d = 0; d < x.rank(); ++d)
                if (d != axis && indices.shape()[d] > x.shape()[d])
                  fail("{}: indices {} exceed data {} on axis {}", label, shape_str(indices.shape()),
                       shape_str(x.shape()), d);
              auto idx = indices.to_int64_vector();
              const auto xs = strides_of(x.shape());
              const Shape& is = indices.shape();
              const int64_t dim = x.shape()[axis];
              std::vector<int64_t> pos(is.size(), 0), offsets(idx.size());
              for (size_t k = 0; k < idx.size(); ++k) {
                int64_t i = idx[k];
                if (i < -dim || i >= dim) fail("{}: index {} is out of range for a dim of {}", label, i, dim);
                if (i < 0) i += dim;
                int64_t off = 0;
                for (size_t d = 0; d < is.size(); ++d) off += (static_cast<int64_t>(d) == axis ? i : pos[d]) * xs[d];
                offsets[k] = off;
                for (int d = static_cast<int>(is.size()) - 1; d >= 0 && ++pos[d] == is[d]; --d) pos[d] = 0;
              }
              Tensor y(x.dtype(), is);
              dispatch_by_size(x.dtype(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* src = raw_as<T>(x);
                T* dst = raw_as<T>(y);
                for (size_t k = 0; k < offsets.size(); ++k) dst[k] = src[offsets[k]];
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
