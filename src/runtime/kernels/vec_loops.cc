#include "runtime/kernels/vec_loops.h"

namespace ms::rt {
namespace generic { const VecLoops& loops(); }
namespace avx2 { const VecLoops& loops(); }
namespace avx512 { const VecLoops& loops(); }

const VecLoops& vec_loops_generic() { return generic::loops(); }

const VecLoops* vec_loops_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &avx2::loops() : nullptr;
}

const VecLoops* vec_loops_avx512() { return __builtin_cpu_supports("avx512f") ? &avx512::loops() : nullptr; }

const VecLoops& vec_loops() {
  static const VecLoops& best = [] () -> const VecLoops& {
    if (const VecLoops* l = vec_loops_avx512()) return *l;
    if (const VecLoops* l = vec_loops_avx2()) return *l;
    return vec_loops_generic();
  }();
  return best;
}

}  // namespace ms::rt
