// Helpers shared by the shape and data-movement ops.
#include "ops/shape_ops_util.h"

#include <algorithm>

namespace ms {

Tensor gather_by_axis_offsets(const Tensor& in, const std::vector<std::vector<int64_t>>& axis_offsets,
                              const Tensor* fill) {
  Shape out_shape;
  for (const auto& m : axis_offsets) out_shape.push_back(static_cast<int64_t>(m.size()));
  Tensor out(in.dtype(), out_shape);
  const int64_t n = out.numel();
  if (n == 0) return out;
  const size_t rank = out_shape.size();
  dispatch_by_size(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = raw_as<T>(in);
    T* dst = raw_as<T>(out);
    T fill_value{};
    if (fill) fill_value = raw_as<T>(*fill)[0];
    // Odometer over the output; partial[d] is the offset summed over axes < d (-1 once any is -1).
    std::vector<int64_t> idx(rank, 0), partial(rank + 1, 0);
    auto refresh = [&](size_t from) {
      for (size_t d = from; d < rank; ++d) {
        int64_t c = axis_offsets[d][idx[d]];
        partial[d + 1] = (partial[d] < 0 || c < 0) ? -1 : partial[d] + c;
      }
    };
    refresh(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t off = partial[rank];
      dst[k] = off < 0 ? fill_value : src[off];
      int d = static_cast<int>(rank) - 1;
      for (; d >= 0; --d) {
        if (++idx[d] < out_shape[d]) break;
        idx[d] = 0;
      }
      if (d < 0) break;
      refresh(static_cast<size_t>(d));
    }
  });
  return out;
}

std::pair<int64_t, int64_t> clamp_slice(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return {0, 0};
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

int64_t axis_index(int64_t axis, int64_t rank, const Node& node) {
  if (rank == 0) fail("{}: axis {} given for a rank-0 tensor", node.label(), axis);
  return normalize_axis(axis, rank, node);
}

void check_output_shape(const Shape& s, const Node& node) {
  constexpr int64_t kMaxElements = int64_t{1} << 34;
  int64_t dims = 0;
  for (int64_t d : s) {
    if (d < 0) fail("{}: negative dim in output shape {}", node.label(), shape_str(s));
    if (d > kMaxElements) fail("{}: output shape {} is too large", node.label(), shape_str(s));
    dims += d;
  }
  if (shape_numel(s) > kMaxElements || dims > kMaxElements)
    fail("{}: output shape {} is too large", node.label(), shape_str(s));
}

Tensor permute_copy(const Tensor& in, const Shape& view_shape, const std::vector<int64_t>& perm) {
  auto st = strides_of(view_shape);
  std::vector<std::vector<int64_t>> maps(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    int64_t ax = perm[d];
    maps[d].resize(static_cast<size_t>(view_shape[ax]));
    for (int64_t o = 0; o < view_shape[ax]; ++o) maps[d][o] = o * st[ax];
  }
  return gather_by_axis_offsets(in, maps);
}

void copy_elements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t n) {
  if (n <= 0) return;
  dispatch_by_size(src.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy_n(raw_as<T>(src) + src_off, n, raw_as<T>(dst) + dst_off);
  });
}

Tensor scalar_of_dtype(DType dt, double v) {
  if (dt == DType::Bool) return Tensor::scalar<bool>(v != 0);
  return dispatch_all_numeric(dt, "scalar", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return Tensor::scalar<T>(T(v));
  });
}

std::optional<Shape> known_shape(const TypeInfo& t) {
  if (t.kind != TypeInfo::Kind::Tensor || !t.has_static_shape()) return std::nullopt;
  return t.static_shape();
}

std::optional<std::vector<int64_t>> const_ints(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const Tensor* c = ctx.input_constant(i);
  if (!c || c->dtype() == DType::String || dtype_is_float(c->dtype())) return std::nullopt;
  return c->to_int64_vector();
}

std::optional<std::vector<int64_t>> ints_input_or_attr(const KernelContext& ctx, size_t i, const std::string& attr) {
  if (ctx.has_input(i)) return ctx.input(i).to_int64_vector();
  if (!attr.empty() && ctx.has_attr(attr)) return ctx.attr_ints(attr);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ints_input_or_attr(const InferContext& ctx, size_t i, const std::string& attr,
                                                       bool* unknown) {
  *unknown = false;
  if (ctx.has_input(i)) {
    auto v = const_ints(ctx, i);
    if (!v) *unknown = true;
    return v;
  }
  if (!attr.empty() && ctx.has_attr(attr)) return ctx.attr_ints(attr);
  return std::nullopt;
}

std::optional<int64_t> static_length(const InferContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const TypeInfo& t = ctx.input_type(i);
  if (!t.shape || t.shape->size() > 1) return std::nullopt;
  if (t.shape->empty()) return 1;
  if (!(*t.shape)[0].is_static()) return std::nullopt;
  return (*t.shape)[0].value;
}

std::vector<Dim> dims_of(const Shape& s) {
  std::vector<Dim> d;
  for (int64_t v : s) d.push_back(Dim::fixed(v));
  return d;
}

}  // namespace ms
