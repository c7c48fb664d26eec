#include "runtime/kernels/fast_kernel.h"

namespace ms::rt {

bool KernelBuildInfo::maybe_f32(size_t i) const {
  const TypeInfo* t = type(i);
  if (!t || t->kind == TypeInfo::Kind::Unknown) return true;
  return t->kind == TypeInfo::Kind::Tensor && (t->dtype == DType::Float32 || t->dtype == DType::Undefined);
}

bool KernelBuildInfo::is_f32_rank(size_t i, size_t rank) const {
  const TypeInfo* t = type(i);
  return t && t->kind == TypeInfo::Kind::Tensor && t->dtype == DType::Float32 && t->shape && t->shape->size() == rank;
}

void FastKernelRegistry::add(std::string domain, std::string op_type, FastKernelFactory make) {
  entries_.push_back({std::move(domain), std::move(op_type), std::move(make)});
}

std::unique_ptr<FastKernel> FastKernelRegistry::select(const KernelBuildInfo& info) const {
  for (const auto& e : entries_)
    if (e.op_type == info.node.op_type && e.domain == info.node.domain)
      if (auto k = e.make(info)) return k;
  return nullptr;
}

const FastKernelRegistry& FastKernelRegistry::global() {
  static const FastKernelRegistry reg = [] {
    FastKernelRegistry r;
    register_onednn_conv_kernels(r);
    register_onednn_qconv_kernels(r);
    register_quantize_kernels(r);
    register_onednn_qmatmul_kernels(r);
    register_dynamic_quantize_kernels(r);
    register_conv_integer_kernels(r);
    register_matmul_integer_kernels(r);
    register_onednn_matmul_kernels(r);
    register_onednn_pool_kernels(r);
    register_binary_kernels(r);
    register_unary_kernels(r);
    register_softmax_kernels(r);
    register_layer_norm_kernels(r);
    register_attention_kernels(r);
    register_batch_norm_kernels(r);
    register_resize_kernels(r);
    // Before the general deconvolution: it declines all but non-overlapping upsampling.
    register_upsample_deconv_kernels(r);
    register_onednn_deconv_kernels(r);
    register_transpose_kernels(r);
    register_concat_kernels(r);
    register_slice_kernels(r);
    register_gather_kernels(r);
    register_rnn_kernels(r);
    // Ahead of the general Cast kernel, which accepts every Cast node and leaves integers to the reference.
    register_int_cast_kernels(r);
    register_cast_kernels(r);
    register_reduce_kernels(r);
    register_view_kernels(r);
    register_pad_kernels(r);
    register_shape_kernels(r);
    register_compare_kernels(r);
    register_logical_kernels(r);
    register_constant_of_shape_kernels(r);
    return r;
  }();
  return reg;
}

}  // namespace ms::rt
