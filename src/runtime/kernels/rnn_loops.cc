#include "runtime/kernels/rnn_loops.h"

namespace ms::rt {
namespace generic { const RnnLoops& rnn_table(); }
namespace avx2 { const RnnLoops& rnn_table(); }
namespace avx512 { const RnnLoops& rnn_table(); }

const RnnLoops& rnn_loops_generic() { return generic::rnn_table(); }

const RnnLoops* rnn_loops_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &avx2::rnn_table() : nullptr;
}

const RnnLoops* rnn_loops_avx512() { return __builtin_cpu_supports("avx512f") ? &avx512::rnn_table() : nullptr; }

const RnnLoops& rnn_loops() {
  static const RnnLoops& best = []() -> const RnnLoops& {
    if (const RnnLoops* l = rnn_loops_avx512()) return *l;
    if (const RnnLoops* l = rnn_loops_avx2()) return *l;
    return rnn_loops_generic();
  }();
  return best;
}

}  // namespace ms::rt
