// Fast kernels: optimized implementations registered against the same op key (domain, op_type)
// as the reference kernels. At session compile time each node asks the registry for a kernel; a
// factory declines (returns nullptr) when the node's attributes, dtypes or constant inputs are
// outside what it handles, and the reference kernel runs instead. A kernel built for a node may
// still decline one run (run() returns false), for example for a dtype that inference did not know.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/op.h"

namespace ms::rt {

// What a factory sees of one node when the session is compiled.
struct KernelBuildInfo {
  const Node& node;
  const OpDef& def;
  int opset = 0;
  std::vector<const Tensor*> constants;  // per input: the initializer it names (a weight), else nullptr
  std::vector<const TypeInfo*> types;    // per input: the inferred type, or nullptr when unknown
  DType compute = DType::Float32;        // SessionOptions::compute_precision

  const Tensor* constant(size_t i) const { return i < constants.size() ? constants[i] : nullptr; }
  const TypeInfo* type(size_t i) const { return i < types.size() ? types[i] : nullptr; }
  // True when input i is known to be float32 or has no inferred type yet (checked again at run).
  bool maybe_f32(size_t i) const;
  // True when input i is known to be a float32 tensor of rank `rank`.
  bool is_f32_rank(size_t i, size_t rank) const;
  bool has_input(size_t i) const { return i < node.inputs.size() && !node.inputs[i].empty(); }
  AttrReader attrs() const { return AttrReader(node, def); }
};

// Memory the session lends a kernel for one run: planned arena slots for its outputs (so they
// are written in place, no copy) and a scratch buffer that all nodes share.
class KernelMemory {
 public:
  virtual ~KernelMemory() = default;
  // A buffer of at least `bytes` for output i, or an undefined tensor when none is planned for it.
  virtual Tensor output(size_t i, DType dtype, const Shape& shape, size_t bytes) = 0;
  // At least `bytes` of 64-byte aligned temporaries, valid until the kernel returns; nullptr = none.
  virtual void* scratch(size_t bytes) = 0;
};

// Lends nothing: outputs and temporaries come from the heap.
class NoKernelMemory : public KernelMemory {
 public:
  Tensor output(size_t, DType, const Shape&, size_t) override { return {}; }
  void* scratch(size_t) override { return nullptr; }
};

class FastKernel {
 public:
  virtual ~FastKernel() = default;
  // Computes the node's outputs into ctx, placing them in `memory` when it lends any; false = these
  // inputs are not handled (nothing was set).
  virtual bool run(KernelContext& ctx, KernelMemory& memory) = 0;
  // Same, outputs and temporaries on the heap.
  bool run(KernelContext& ctx) {
    NoKernelMemory heap;
    return run(ctx, heap);
  }
  // Bytes of temporaries a run needs besides its outputs (prepacked weights excluded).
  virtual size_t scratch_bytes() const { return 0; }
  virtual const char* name() const = 0;

  // Layout negotiation at session compile time. Kernels that can read input i, or write their
  // output, in oneDNN's channel-blocked layout (onednn_util.h) say so; the session then fixes the
  // layout of each value once (blocked only between kernels that all handle it, never for graph
  // outputs) and tells each kernel. A kernel told to use the blocked layout must not decline a run:
  // no other kernel could read its inputs.
  virtual bool accepts_blocked(size_t input) const { return false; }
  virtual bool emits_blocked() const { return false; }
  // True for kernels that only pass the layout along (elementwise ops): their output is blocked
  // only when one of their inputs is, else a chain of them would reorder plain values for nothing.
  virtual bool blocked_only_after_blocked() const { return false; }
  virtual void use_layouts(const std::vector<bool>& blocked_inputs, bool blocked_output) {}
};

using FastKernelFactory = std::function<std::unique_ptr<FastKernel>(const KernelBuildInfo&)>;

struct FastKernelEntry {
  std::string domain;  // "" = ai.onnx
  std::string op_type;
  FastKernelFactory make;
};

class FastKernelRegistry {
 public:
  // Every fast kernel of src/runtime/kernels (built once, then read-only).
  static const FastKernelRegistry& global();
  void add(std::string domain, std::string op_type, FastKernelFactory make);
  // The first kernel whose factory accepts the node, or nullptr.
  std::unique_ptr<FastKernel> select(const KernelBuildInfo& info) const;

 private:
  std::vector<FastKernelEntry> entries_;
};

// Registration functions, one per kernel file, called by FastKernelRegistry::global().
void register_onednn_conv_kernels(FastKernelRegistry& r);
void register_onednn_qconv_kernels(FastKernelRegistry& r);
void register_quantize_kernels(FastKernelRegistry& r);
void register_onednn_qmatmul_kernels(FastKernelRegistry& r);
void register_dynamic_quantize_kernels(FastKernelRegistry& r);
void register_conv_integer_kernels(FastKernelRegistry& r);
void register_matmul_integer_kernels(FastKernelRegistry& r);
void register_onednn_matmul_kernels(FastKernelRegistry& r);
void register_onednn_pool_kernels(FastKernelRegistry& r);
void register_binary_kernels(FastKernelRegistry& r);
void register_unary_kernels(FastKernelRegistry& r);
void register_softmax_kernels(FastKernelRegistry& r);
void register_layer_norm_kernels(FastKernelRegistry& r);
void register_attention_kernels(FastKernelRegistry& r);
void register_batch_norm_kernels(FastKernelRegistry& r);
void register_resize_kernels(FastKernelRegistry& r);
void register_onednn_deconv_kernels(FastKernelRegistry& r);
void register_upsample_deconv_kernels(FastKernelRegistry& r);
void register_transpose_kernels(FastKernelRegistry& r);
void register_concat_kernels(FastKernelRegistry& r);
void register_slice_kernels(FastKernelRegistry& r);
void register_gather_kernels(FastKernelRegistry& r);
void register_rnn_kernels(FastKernelRegistry& r);
void register_int_cast_kernels(FastKernelRegistry& r);
void register_cast_kernels(FastKernelRegistry& r);
void register_reduce_kernels(FastKernelRegistry& r);
void register_view_kernels(FastKernelRegistry& r);
void register_pad_kernels(FastKernelRegistry& r);
void register_shape_kernels(FastKernelRegistry& r);
void register_compare_kernels(FastKernelRegistry& r);
void register_logical_kernels(FastKernelRegistry& r);
void register_constant_of_shape_kernels(FastKernelRegistry& r);

}  // namespace ms::rt
