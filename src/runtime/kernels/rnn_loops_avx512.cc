// The avx512 build of rnn_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/rnn_loops.h"

#define MS_VEC_NS avx512
#define MS_VEC_ISA "avx512"
#define MS_RNN_UNIT 16
#define MS_RNN_ACC_REGS 24
#include "runtime/kernels/rnn_loops.inc"
