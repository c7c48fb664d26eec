#include "runtime/kernels/rnn_loops.h"

namespace ms::rt {
namespace generic { const RnnLoops& loops(); }
namespace avx2 { const RnnLoops& loops(); }
namespace avx512 { const RnnLoops& loops(); }

const RnnLoops& rnn_loops_generic() { return generic::loops(); }

const RnnLoops* rnn_loops_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &avx2::loops() : nullptr;
}

const RnnLoops* rnn_loops_avx512() { return __builtin_cpu_supports("avx512f") ? &avx512::loops() : nullptr; }

const RnnLoops& rnn_loops() {
  static const RnnLoops& best = []() -> const RnnLoops& {
    if (const RnnLoops* l = rnn_loops_avx512()) return *l;
    if (const RnnLoops* l = rnn_loops_avx2()) return *l;
    return rnn_loops_generic();
  }();
  return best;
}

}  // namespace ms::rt
