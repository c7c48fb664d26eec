// The avx512 build of vec_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/vec_loops.h"

#define MS_VEC_NS avx512
#define MS_VEC_ISA "avx512"
#include "runtime/kernels/vec_loops.inc"
