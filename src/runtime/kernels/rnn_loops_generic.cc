// The generic build of rnn_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/rnn_loops.h"

#define MS_VEC_NS generic
#define MS_VEC_ISA "generic"
#define MS_RNN_UNIT 4
#define MS_RNN_ACC_REGS 8
#include "runtime/kernels/rnn_loops.inc"
