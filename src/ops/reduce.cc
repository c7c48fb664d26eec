// Reduce*: y = fold of x over `axes` (Sum, Mean, Prod, Min, Max, L1 = sum|x|, L2 = sqrt(sum x^2),
// SumSquare = sum x^2, LogSum = log(sum x), LogSumExp = log(sum exp x)).
#include "ops/reduce_util.h"

namespace ms {
namespace {

// Each reduction: init value, per-element step, and finalization given the element count.
// A is the accumulator type (double for floats, 64-bit integers otherwise; see kFloatAcc).
struct SumR {
  static constexpr bool kFloatAcc = false;
  template <class T, class A> static A init() { return A(0); }
  template <class A> static A step(A a, A x) { return a + x; }
  template <class A> static A fin(A a, int64_t) { return a; }
};
struct MeanR : SumR {
  template <class A> static A fin(A a, int64_t n) {
    if constexpr (std::is_floating_point_v<A>) return a / static_cast<A>(n);
    else return n == 0 ? A(0) : a / static_cast<A>(n);
  }
};
struct ProdR : SumR {
  template <class T, class A> static A init() { return A(1); }
  template <class A> static A step(A a, A x) { return a * x; }
};
struct MaxR : SumR {
  template <class T, class A> static A init() {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    else return static_cast<A>(std::numeric_limits<T>::lowest());
  }
  template <class A> static A step(A a, A x) { return (x > a || x != x) ? x : a; }
};
struct MinR : SumR {
  template <class T, class A> static A init() {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    else return static_cast<A>(std::numeric_limits<T>::max());
  }
  template <class A> static A step(A a, A x) { return (x < a || x != x) ? x : a; }
};
struct L1R : SumR {
  template <class A> static A step(A a, A x) {
    if constexpr (std::is_unsigned_v<A>) return a + x;
    else return a + (x < 0 ? -x : x);
  }
};
struct SumSquareR : SumR {
  template <class A> static A step(A a, A x) { return a + x * x; }
};
struct L2R : SumSquareR {
  static constexpr bool kFloatAcc = true;
  template <class A> static A fin(A a, int64_t) { return std::sqrt(a); }
};
struct LogSumR : SumR {
  static constexpr bool kFloatAcc = true;
  template <class A> static A fin(A a, int64_t) { return std::log(a); }
};
// Computed as max + log(sum exp(x - max)) for stability; the kernel supplies the shift.
struct LogSumExpR : SumR {
  static constexpr bool kFloatAcc = true;
  template <class A> static A step(A a, A x) { return a + std::exp(x); }
  template <class A> static A fin(A a, int64_t) { return std::log(a); }
};

// Axes from input 1 (newer opsets) or the attribute; nullopt when not known at inference time.
std::optional<std::vector<int64_t>> axes_of(const AttrReader& ctx, const Tensor* axes_input, bool has_axes_input) {
  if (has_axes_input) {
    if (!axes_input) return std::nullopt;
    return axes_input->to_int64_vector();
  }
  if (ctx.has_attr("axes")) return ctx.attr_ints("axes");
  return std::vector<int64_t>{};
}

// Reduced axes for `rank` (empty result = identity when noop_with_empty_axes).
std::vector<int64_t> reduced_axes(const AttrReader& ctx, std::vector<int64_t> axes, int64_t rank, bool* noop) {
  *noop = false;
  if (axes.empty()) {
    if (ctx.attr_int("noop_with_empty_axes")) {
      *noop = true;
      return {};
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  return normalize_axes(axes, rank, ctx.node());
}

template <class R, class T>
void reduce_typed(const Tensor& x, Tensor& y, const Shape& keep_shape, int64_t count) {
  using A = std::conditional_t<R::kFloatAcc, double, acc_t<T>>;
  const T* in = x.data<T>();
  const int64_t n_out = shape_numel(keep_shape);
  auto offs = broadcast_offsets(keep_shape, x.shape());
  std::vector<A> shift(n_out, A(0));
  if constexpr (std::is_same_v<R, LogSumExpR>) {
    std::vector<A> mx(n_out, -std::numeric_limits<A>::infinity());
    for (int64_t i = 0; i < x.numel(); ++i) mx[offs[i]] = std::max(mx[offs[i]], to_acc<A>(in[i]));
    for (int64_t o = 0; o < n_out; ++o) shift[o] = std::isfinite(mx[o]) ? mx[o] : A(0);
  }
  std::vector<A> acc(n_out, R::template init<T, A>());
  for (int64_t i = 0; i < x.numel(); ++i) {
    A& a = acc[offs[i]];
    a = R::step(a, static_cast<A>(to_acc<A>(in[i]) - shift[offs[i]]));
  }
  T* out = y.data<T>();
  for (int64_t o = 0; o < n_out; ++o) out[o] = from_acc<T>(static_cast<A>(R::fin(acc[o], count) + shift[o]));
}

template <class R>
KernelFn reduce_kernel() {
  return [](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor* axes_in = ctx.has_input(1) ? &ctx.input(1) : nullptr;
    auto axes = *axes_of(ctx, axes_in, axes_in != nullptr);
    bool noop = false;
    auto red = reduced_axes(ctx, axes, x.rank(), &noop);
    if (noop) {
      ctx.set_output(0, x);
      return;
    }
    Shape keep = x.shape(), out_shape;
    int64_t count = 1;
    for (int64_t a : red) {
      count *= keep[a];
      keep[a] = 1;
    }
    const bool keepdims = ctx.attr_int("keepdims") != 0;
    for (int64_t i = 0; i < x.rank(); ++i)
      if (keepdims || !std::binary_search(red.begin(), red.end(), i)) out_shape.push_back(keep[i]);
    Tensor y(x.dtype(), out_shape);
    dispatch_all_numeric(x.dtype(), ctx.node().label(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      reduce_typed<R, T>(x, y, keep, count);
    });
    ctx.set_output(0, std::move(y));
  };
}

void infer_reduce(InferContext& ctx) {
  const TypeInfo& t = ctx.input_type(0);
  const bool has_axes_input = ctx.has_input(1);
  auto axes = axes_of(ctx, ctx.input_constant(1), has_axes_input);
  if (!t.shape || !axes) {
    ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(t.dtype));
    return;
  }
  const auto& dims = *t.shape;
  bool noop = false;
  auto red = reduced_axes(ctx, *axes, static_cast<int64_t>(dims.size()), &noop);
  if (noop) {
    ctx.set_output_type(0, t);
    return;
  }
  const bool keepdims = ctx.attr_int("keepdims") != 0;
  std::vector<Dim> out;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    bool r = std::binary_search(red.begin(), red.end(), i);
    if (!r) out.push_back(dims[i]);
    else if (keepdims) out.push_back(Dim::fixed(1));
  }
  ctx.set_output_type(0, TypeInfo::tensor(t.dtype, out));
}

template <class R>
void add_reduce(OpRegistry& r, const char* name) {
  r.add(OpDef(name)
            .inputs(1, 2)
            .outputs(1)
            .attr("axes", AttrType::Ints, false)
            .attr_int("keepdims", 1)
            .attr_int("noop_with_empty_axes", 0)
            .infer_fn(infer_reduce)
            .kernel_fn(reduce_kernel<R>()));
}

}  // namespace

void register_op_reduce(OpRegistry& r) {
  add_reduce<SumR>(r, "ReduceSum");
  add_reduce<MeanR>(r, "ReduceMean");
  add_reduce<ProdR>(r, "ReduceProd");
  add_reduce<MaxR>(r, "ReduceMax");
  add_reduce<MinR>(r, "ReduceMin");
  add_reduce<L1R>(r, "ReduceL1");
  add_reduce<L2R>(r, "ReduceL2");
  add_reduce<SumSquareR>(r, "ReduceSumSquare");
  add_reduce<LogSumR>(r, "ReduceLogSum");
  add_reduce<LogSumExpR>(r, "ReduceLogSumExp");
}

}  // namespace ms
