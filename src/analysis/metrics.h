// Numerical agreement of one tensor with its reference: the figures `ms compare` reports and the
// tolerance that turns them into a verdict.
#pragma once
#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace ms::analysis {

// The verdict: every criterion that is set must hold. With atol or rtol set, every element must
// satisfy |a - ref| <= atol + rtol * |ref| (numpy.allclose; the unset one counts as 0).
struct Tolerance {
  std::optional<double> atol;
  std::optional<double> rtol;
  std::optional<double> min_cosine;
  bool elementwise() const { return atol || rtol; }
};

struct TensorMetrics {
  bool comparable = true;   // false when the element counts differ (nothing else is meaningful then)
  bool same_shape = true;   // equal element counts but another shape still compares element by element
  Shape shape;              // of the tensor under test
  Shape ref_shape;
  int64_t count = 0;
  // Over the element pairs where both values are finite.
  double cosine = 0;        // 1 when both are all zero, 0 when exactly one is
  double max_abs = 0;
  double mean_abs = 0;
  double mse = 0;
  double psnr = 0;          // 10 log10(peak^2 / MSE), peak = max |ref|; +inf when MSE = 0
  double max_rel = 0;       // max |a - ref| / max(|ref|, 1e-6 * max |ref|)
  int64_t max_abs_index = -1;  // flat index of the largest absolute error
  // Positions where the two differ in a non-finite way (NaN against a number, +inf against -inf, ...).
  int64_t nonfinite_mismatches = 0;
  int64_t tolerance_violations = 0;  // elements beyond atol + rtol*|ref| (0 unless the tolerance is elementwise)
  // Set by add_top_k_agreement() for classification-like outputs.
  std::optional<double> top1;
  std::optional<double> top5;
};

// `actual` against `ref`; any numeric dtypes (compared as double).
TensorMetrics compare_tensors(const Tensor& actual, const Tensor& ref, const Tolerance& tol);

// For classification-like tensors (see classification_layout): top1 = the fraction of rows whose
// argmax is the reference's; top5 = the fraction whose 5 largest hold the reference's argmax (only
// with more than 5 classes). Does nothing for other tensors.
void add_top_k_agreement(const Tensor& actual, const Tensor& ref, TensorMetrics& m);

bool within_tolerance(const TensorMetrics& m, const Tolerance& tol);

// Rows x classes view of a classification-like tensor (float; rank 1 or 2 once size-1 dims are
// dropped; at least 2 classes), if it is one.
struct ClassLayout {
  int64_t rows = 0;
  int64_t classes = 0;
};
std::optional<ClassLayout> classification_layout(const Tensor& t);

// argmax of each row (first index among ties); `t` must be classification-like.
std::vector<int64_t> row_argmax(const Tensor& t, const ClassLayout& layout);

}  // namespace ms::analysis
