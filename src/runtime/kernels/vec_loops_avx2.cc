// The avx2 build of vec_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/vec_loops.h"

#define MS_VEC_NS avx2
#define MS_VEC_ISA "avx2"
#include "runtime/kernels/vec_loops.inc"
