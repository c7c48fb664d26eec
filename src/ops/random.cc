// Random generators (std::mt19937, seeded by the `seed` attribute when given): RandomUniform[Like]
// ~ U[low, high), RandomNormal[Like] ~ N(mean, scale^2), Bernoulli ~ B(p) per element,
// Multinomial draws sample_size class indices per row from softmax(input).
#include <cmath>
#include <random>

#include "ops/kernel_util.h"

namespace ms {

namespace {
std::mt19937 make_rng(const KernelContext& ctx) {
  if (ctx.has_attr("seed")) return std::mt19937(static_cast<uint32_t>(static_cast<int64_t>(ctx.attr_float("seed"))));
  std::random_device rd;
  return std::mt19937(rd());
}

DType out_dtype(const AttrReader& a, DType fallback) {
  if (!a.has_attr("dtype")) return fallback;
  const int64_t dt = a.attr_int("dtype");
  if (!dtype_is_valid(static_cast<int32_t>(dt))) fail("{}: invalid dtype {}", a.node().label(), dt);
  return DType(dt);
}

Tensor fill(DType dt, const Shape& shape, const std::string& who, const std::function<double()>& gen) {
  Tensor t(dt, shape);
  if (dt == DType::Bool) {
    bool* o = t.data<bool>();
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = gen() != 0;
    return t;
  }
  dispatch_all_numeric(dt, who, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = static_cast<T>(gen());
  });
  return t;
}

enum class Dist { Uniform, Normal };

std::function<double()> sampler(const KernelContext& ctx, Dist d, std::mt19937& rng) {
  if (d == Dist::Uniform) {
    std::uniform_real_distribution<double> u(ctx.attr_float("low"), ctx.attr_float("high"));
    return [u, &rng]() mutable { return u(rng); };
  }
  std::normal_distribution<double> n(ctx.attr_float("mean"), ctx.attr_float("scale"));
  return [n, &rng]() mutable { return n(rng); };
}

void add_generator(OpRegistry& r, const char* name, Dist d, bool like) {
  OpDef def(name);
  def.inputs(like ? 1 : 0).outputs(1).trait(kTraitRandom).attr("seed", AttrType::Float, false);
  if (like)
    def.attr("dtype", AttrType::Int, false);
  else
    def.attr_int("dtype", 1).attr("shape", AttrType::Ints, true);
  if (d == Dist::Uniform)
    def.attr_float("high", 1.0f).attr_float("low", 0.0f);
  else
    def.attr_float("mean", 0.0f).attr_float("scale", 1.0f);
  def.infer_fn([like](InferContext& ctx) {
    if (like) {
      const TypeInfo& t = ctx.input_type(0);
      TypeInfo o = t;
      o.dtype = out_dtype(ctx, t.dtype);
      ctx.set_output_type(0, o);
    } else {
      ctx.set_output_type(0, TypeInfo::tensor(out_dtype(ctx, DType::Float32), Shape(ctx.attr_ints("shape"))));
    }
  });
  def.kernel_fn([d, like](KernelContext& ctx) {
    const std::string who = ctx.node().label();
    Shape shape;
    DType dt;
    if (like) {
      shape = ctx.input(0).shape();
      dt = out_dtype(ctx, ctx.input(0).dtype());
    } else {
      shape = ctx.attr_ints("shape");
      for (int64_t s : shape)
        if (s < 0) fail("{}: negative dimension in shape {}", who, shape_str(shape));
      dt = out_dtype(ctx, DType::Float32);
    }
    if (!dtype_is_float(dt)) fail_unsupported("{}: dtype {} is not supported (float types only)", who, dtype_name(dt));
    std::mt19937 rng = make_rng(ctx);
    ctx.set_output(0, fill(dt, shape, who, sampler(ctx, d, rng)));
  });
  r.add(std::move(def));
}
}  // namespace

void register_op_random_uniform(OpRegistry& r) { add_generator(r, "RandomUniform", Dist::Uniform, false); }
void register_op_random_uniform_like(OpRegistry& r) { add_generator(r, "RandomUniformLike", Dist::Uniform, true); }
void register_op_random_normal(OpRegistry& r) { add_generator(r, "RandomNormal", Dist::Normal, false); }
void register_op_random_normal_like(OpRegistry& r) { add_generator(r, "RandomNormalLike", Dist::Normal, true); }

void register_op_bernoulli(OpRegistry& r) {
  r.add(OpDef("Bernoulli")
            .inputs(1)
            .outputs(1)
            .trait(kTraitRandom)
            .attr("dtype", AttrType::Int, false)
            .attr("seed", AttrType::Float, false)
            .infer_fn([](InferContext& ctx) {
              TypeInfo o = ctx.input_type(0);
              o.dtype = out_dtype(ctx, o.dtype);
              ctx.set_output_type(0, o);
            })
            .kernel_fn([](KernelContext& ctx) {
              const Tensor& p = ctx.input(0);
              dispatch_float(p.dtype(), ctx.node().label(), [](auto) {});
              const std::vector<double> probs = p.to_double_vector();
              std::mt19937 rng = make_rng(ctx);
              std::uniform_real_distribution<double> u(0.0, 1.0);
              size_t i = 0;
              ctx.set_output(0, fill(out_dtype(ctx, p.dtype()), p.shape(), ctx.node().label(),
                                     [&] { return u(rng) < probs[i++] ? 1.0 : 0.0; }));
            }));
}

void register_op_multinomial(OpRegistry& r) {
  r.add(OpDef("Multinomial")
            .inputs(1)
            .outputs(1)
            .trait(kTraitRandom)
            .attr_int("dtype", 6)
            .attr_int("sample_size", 1)
            .attr("seed", AttrType::Float, false)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              Dim b = t.shape && t.shape->size() == 2 ? (*t.shape)[0] : Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(DType(ctx.attr_int("dtype")),
                                                      std::vector<Dim>{b, Dim::fixed(ctx.attr_int("sample_size"))}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              if (x.rank() != 2) fail("{}: input must be [batch, classes], got {}", who, shape_str(x.shape()));
              const DType dt = DType(ctx.attr_int("dtype"));
              if (dt != DType::Int32 && dt != DType::Int64) fail("{}: dtype must be int32 or int64", who);
              const int64_t n = ctx.attr_int("sample_size"), B = x.dim(0), C = x.dim(1);
              if (n < 0 || C < 1) fail("{}: sample_size {} / {} classes invalid", who, n, C);
              const std::vector<double> logits = x.to_double_vector();
              std::mt19937 rng = make_rng(ctx);
              std::vector<double> samples;
              for (int64_t b = 0; b < B; ++b) {
                // The input holds unnormalised log-probabilities.
                std::vector<double> w(logits.begin() + b * C, logits.begin() + (b + 1) * C);
                const double mx = *std::max_element(w.begin(), w.end());
                for (auto& v : w) v = std::exp(v - mx);
                std::discrete_distribution<int64_t> dist(w.begin(), w.end());
                for (int64_t s = 0; s < n; ++s) samples.push_back(double(dist(rng)));
              }
              size_t i = 0;
              ctx.set_output(0, fill(dt, {B, n}, who, [&] { return samples[i++]; }));
            }));
}

}  // namespace ms
