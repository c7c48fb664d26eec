// ReverseSequence: for each batch b, y[.., t, .., b, ..] = x[.., lens[b]-1-t, .., b, ..] for
// t < lens[b], copied unchanged for t >= lens[b] (t on time_axis, b on batch_axis).
#include "ops/shape_ops_util.h"

namespace ms {

void register_op_reverse_sequence(OpRegistry& r) {
  r.add(OpDef("ReverseSequence")
            .inputs(2)
            .outputs(1)
            .attr_int("batch_axis", 1)
            .attr_int("time_axis", 0)
            .infer_fn(infer_same_as_input0)
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              const std::string label = ctx.node().label();
              if (x.rank() < 2) fail("{}: input must have rank >= 2, got {}", label, shape_str(x.shape()));
              const int64_t ba = ctx.attr_int("batch_axis"), ta = ctx.attr_int("time_axis");
              if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
                fail("{}: batch_axis {} and time_axis {} must be 0 and 1", label, ba, ta);
              auto lens = ctx.input(1).to_int64_vector();
              const int64_t batch = x.shape()[ba], steps = x.shape()[ta];
              if (static_cast<int64_t>(lens.size()) != batch)
                fail("{}: {} sequence lengths for a batch of {}", label, lens.size(), batch);
              for (int64_t l : lens)
                if (l < 0 || l > steps) fail("{}: sequence length {} is outside [0, {}]", label, l, steps);
              const auto st = strides_of(x.shape());
              int64_t inner = 1;
              for (int d = 2; d < x.rank(); ++d) inner *= x.shape()[d];
              Tensor y(x.dtype(), x.shape());
              for (int64_t b = 0; b < batch; ++b)
                for (int64_t t = 0; t < steps; ++t) {
                  const int64_t src_t = t < lens[b] ? lens[b] - 1 - t : t;
                  copy_elements(x, b * st[ba] + src_t * st[ta], y, b * st[ba] + t * st[ta], inner);
                }
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
