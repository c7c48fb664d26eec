#include "ops/kernel_util.h"

namespace ms {

int64_t normalize_axis(int64_t axis, int64_t rank, const Node& node) {
  if (axis < -rank || (axis >= rank && !(rank == 0 && axis == 0)))
    fail("{}: axis {} is out of range for rank {}", node.label(), axis, rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

Shape broadcast_shapes(const std::vector<Shape>& shapes, const Node& node) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (const auto& x : shapes) all += (all.empty() ? "" : " and ") + shape_str(x);
      fail("{}: shapes {} cannot be broadcast", node.label(), all);
    }
  }
  return out;
}

std::vector<int64_t> broadcast_offsets(const Shape& in, const Shape& out) {
  const size_t rank = out.size();
  std::vector<int64_t> in_strides(rank, 0);
  auto st = strides_of(in);
  size_t off = rank - in.size();
  for (size_t i = 0; i < in.size(); ++i) in_strides[off + i] = in[i] == 1 ? 0 : st[i];
  int64_t n = shape_numel(out);
  std::vector<int64_t> offsets(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  int64_t cur = 0;
  for (int64_t k = 0; k < n; ++k) {
    offsets[k] = cur;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) {
        cur += in_strides[d];
        break;
      }
      cur -= in_strides[d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
  return offsets;
}

std::vector<Dim> broadcast_dims(const std::vector<std::vector<Dim>>& shapes, const Node& node) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<Dim> out(rank, Dim::fixed(1));
  for (const auto& s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      const Dim& d = s[i];
      Dim& o = out[off + i];
      if (d.is_static() && d.value == 1) continue;
      if (o.is_static() && o.value == 1) {
        o = d;
        continue;
      }
      if (d.is_static() && o.is_static() && d.value != o.value)
        fail("{}: dimension {} cannot be broadcast with {}", node.label(), d.value, o.value);
      if (!o.is_static() && d.is_static()) o = d;  // the static size wins (the other must be 1 or equal)
    }
  }
  return out;
}

namespace {
void infer_broadcast_as(InferContext& ctx, DType dt) {
  std::vector<std::vector<Dim>> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const TypeInfo& t = ctx.input_type(i);
    if (!t.shape) {
      ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(dt));
      return;
    }
    shapes.push_back(*t.shape);
  }
  ctx.set_output_type(0, TypeInfo::tensor(dt, broadcast_dims(shapes, ctx.node())));
}
}  // namespace

void infer_same_as_input0(InferContext& ctx) { ctx.set_output_type(0, ctx.input_type(0)); }
void infer_broadcast(InferContext& ctx) { infer_broadcast_as(ctx, ctx.input_type(0).dtype); }
void infer_broadcast_bool(InferContext& ctx) { infer_broadcast_as(ctx, DType::Bool); }

}  // namespace ms
