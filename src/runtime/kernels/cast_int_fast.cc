// Cast from 8/16/32-bit integers to float32, vectorized and spread over the threads: the Cast that
// ONNX Runtime's dynamic quantization puts after every ConvInteger / MatMulInteger (int32
// accumulator to float, then Mul by the scales). Same values as the reference: static_cast<float>,
// which rounds to nearest even where an int32 has more than 24 significant bits. Registered ahead
// of the general Cast kernel (cast_fast.cc), which leaves integer sources to the reference.
#include "runtime/kernels/fast_kernel.h"
#include "runtime/kernels/onednn_util.h"
#include "runtime/kernels/parallel.h"

namespace ms::rt {
namespace {

template <class From>
__attribute__((target_clones("avx512f", "avx2", "default"))) void to_float_loop(const From* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

template <class From>
void to_float(const Tensor& x, Tensor& y) {
  const From* src = x.data<From>();
  float* dst = y.data<float>();
  parallel_chunks(x.numel(), [&](int64_t b, int64_t e) { to_float_loop<From>(src + b, dst + b, e - b); });
}

class FastIntToFloatCast : public FastKernel {
 public:
  const char* name() const override { return "vec_cast_int_to_f32"; }
  bool run(KernelContext& ctx, KernelMemory& memory) override {
    const Tensor& x = ctx.input(0);
    const DType from = x.dtype();
    if (from != DType::Int32 && from != DType::Int16 && from != DType::UInt16 && from != DType::Int8 &&
        from != DType::UInt8)
      return false;
    Tensor y = output_tensor(memory, 0, DType::Float32, x.shape());
    switch (from) {
      case DType::Int32: to_float<int32_t>(x, y); break;
      case DType::Int16: to_float<int16_t>(x, y); break;
      case DType::UInt16: to_float<uint16_t>(x, y); break;
      case DType::Int8: to_float<int8_t>(x, y); break;
      default: to_float<uint8_t>(x, y); break;
    }
    ctx.set_output(0, std::move(y));
    return true;
  }
};

// Only where inference knows the source is one of these integers: other Casts go to cast_fast.cc.
std::unique_ptr<FastKernel> make_int_to_float_cast(const KernelBuildInfo& info) {
  const Attribute* to = info.node.attr("to");
  if (!to || to->type != AttrType::Int || static_cast<DType>(to->i) != DType::Float32) return nullptr;
  const TypeInfo* t = info.type(0);
  if (!t || t->kind != TypeInfo::Kind::Tensor) return nullptr;
  switch (t->dtype) {
    case DType::Int32: case DType::Int16: case DType::UInt16: case DType::Int8: case DType::UInt8:
      return std::make_unique<FastIntToFloatCast>();
    default: return nullptr;
  }
}

}  // namespace

void register_int_cast_kernels(FastKernelRegistry& r) { r.add("", "Cast", make_int_to_float_cast); }

}  // namespace ms::rt
