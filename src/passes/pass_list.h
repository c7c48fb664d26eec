// Factories of the optimizer's passes, one file each (the file is named like the pass).
// pipelines.cc puts them in order per level.
#pragma once
#include <memory>

#include "passes/pass.h"

namespace ms::passes {

std::unique_ptr<Pass> make_fold_constants();
std::unique_ptr<Pass> make_eliminate_dead_code();
std::unique_ptr<Pass> make_dedupe_initializers();
std::unique_ptr<Pass> make_eliminate_common_subexpressions();
std::unique_ptr<Pass> make_eliminate_noops();
std::unique_ptr<Pass> make_merge_layout_chains();
std::unique_ptr<Pass> make_fold_batch_norm();
std::unique_ptr<Pass> make_fold_scale_shift();
std::unique_ptr<Pass> make_fold_pad();
std::unique_ptr<Pass> make_fuse_matmul_add();
std::unique_ptr<Pass> make_fold_transpose_into_gemm();
std::unique_ptr<Pass> make_fuse_layer_norm();
std::unique_ptr<Pass> make_fuse_gelu();
std::unique_ptr<Pass> make_fuse_hard_swish();
std::unique_ptr<Pass> make_fuse_leaky_relu();
std::unique_ptr<Pass> make_fuse_attention();
std::unique_ptr<Pass> make_fuse_activation();
std::unique_ptr<Pass> make_fuse_quantized_conv();

}  // namespace ms::passes
