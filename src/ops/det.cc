// Det: y[...] = determinant of the square matrix x[..., :, :] (LU with partial pivoting).
#include "ops/reduce_util.h"

namespace ms {

void register_op_det(OpRegistry& r) {
  r.add(OpDef("Det")
            .inputs(1)
            .outputs(1)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              if (!t.shape || t.shape->size() < 2) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.dtype));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(t.dtype, std::vector<Dim>(t.shape->begin(), t.shape->end() - 2)));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& x = ctx.input(0);
              if (x.rank() < 2 || x.dim(-1) != x.dim(-2))
                fail("{}: input must be [..., M, M], got {}", ctx.node().label(), shape_str(x.shape()));
              const int64_t m = x.dim(-1);
              Shape out_shape(x.shape().begin(), x.shape().end() - 2);
              const int64_t batch = shape_numel(out_shape);
              auto xd = x.to_double_vector();
              std::vector<double> dets(batch);
              for (int64_t b = 0; b < batch; ++b) {
                std::vector<double> a(xd.begin() + b * m * m, xd.begin() + (b + 1) * m * m);
                double det = 1;
                for (int64_t c = 0; c < m && det != 0; ++c) {
                  int64_t piv = c;
                  for (int64_t r = c + 1; r < m; ++r)
                    if (std::abs(a[r * m + c]) > std::abs(a[piv * m + c])) piv = r;
                  if (a[piv * m + c] == 0) {
                    det = 0;
                    break;
                  }
                  if (piv != c) {
                    for (int64_t k = 0; k < m; ++k) std::swap(a[c * m + k], a[piv * m + k]);
                    det = -det;
                  }
                  det *= a[c * m + c];
                  for (int64_t r = c + 1; r < m; ++r) {
                    const double f = a[r * m + c] / a[c * m + c];
                    for (int64_t k = c; k < m; ++k) a[r * m + k] -= f * a[c * m + k];
                  }
                }
                dets[b] = det;
              }
              Tensor y(x.dtype(), out_shape);
              dispatch_float(x.dtype(), ctx.node().label(), [&](auto tag) {
                using T = typename decltype(tag)::type;
                T* p = y.data<T>();
                for (int64_t b = 0; b < batch; ++b) p[b] = from_acc<T>(dets[b]);
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
