// The generic build of vec_loops.inc (target flags: CMakeLists.txt).
#include "runtime/kernels/vec_loops.h"

#define MS_VEC_NS generic
#define MS_VEC_ISA "generic"
#include "runtime/kernels/vec_loops.inc"
