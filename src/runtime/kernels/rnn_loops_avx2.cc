// The avx2 build of rnn_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/rnn_loops.h"

#define MS_VEC_NS avx2
#define MS_VEC_ISA "avx2"
#define MS_RNN_UNIT 8
#define MS_RNN_ACC_REGS 12
#include "runtime/kernels/rnn_loops.inc"
