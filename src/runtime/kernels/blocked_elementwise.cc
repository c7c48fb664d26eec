#include "runtime/kernels/blocked_elementwise.h"

#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {

Tensor blocked_elementwise(const std::vector<BlockedOperand>& operands, const Shape& shape, bool out_blocked,
                           const std::function<void(const std::vector<const float*>&, float*, int64_t)>& body) {
  const dnnl::memory::desc bmd = blocked_f32_desc(shape), pmd = plain_f32_desc(shape);
  const int64_t n = static_cast<int64_t>(bmd.get_size() / sizeof(float));
  std::vector<Tensor> temps;
  std::vector<const float*> src;
  for (const auto& op : operands) {
    if (op.blocked) {
      src.push_back(static_cast<const float*>(op.tensor->raw()));
    } else {
      temps.push_back(byte_buffer(bmd));
      reorder(pmd, op.tensor->raw(), bmd, temps.back().raw());
      src.push_back(static_cast<const float*>(temps.back().raw()));
    }
  }
  Tensor out = out_blocked ? uninit_tensor(DType::Float32, shape, bmd.get_size()) : byte_buffer(bmd);
  float* dst = static_cast<float*>(out.raw());
  parallel_chunks(n, [&](int64_t b, int64_t e) {
    std::vector<const float*> part(src);
    for (auto& p : part) p += b;
    body(part, dst + b, e - b);
  });
  if (out_blocked) return out;
  Tensor y = uninit_tensor(DType::Float32, shape);
  reorder(bmd, out.raw(), pmd, y.raw());
  return y;
}

}  // namespace ms::rt
