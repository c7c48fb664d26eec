// MS-L014: numpy arrays of float64/int64 turned into Tensors (Tensor(np.zeros(3)),
// Tensor(np.random.randn(...)), Parameter(np.arange(n)), Tensor(x, ms.float64)...). numpy's
// defaults are 64-bit; the resulting float64/int64 weights and constants double the model size and
// are unsupported or slow on Ascend and most inference back ends, and mixing them with float32
// activations inserts casts or fails type inference.
#include "lint/rules/common.h"

#include <map>

namespace ms::lint {

namespace {

enum W { W_UNKNOWN = 0, W_F64 = 1, W_I64 = 2, W_32 = 3, W_RNG = 4 };

W dtype_of(const Node& d) {
  std::string s;
  if (is(d, "Constant") && field(d, "value") && field(d, "value")->is_string()) s = field(d, "value")->get<std::string>();
  else s = last_part(dotted(d));
  if (s.empty()) return W_UNKNOWN;
  if (s == "float64" || s == "double" || s == "float_" || s == "longdouble" || s == "f8" || s == "d" || s == "float") return W_F64;
  if (s == "int64" || s == "int_" || s == "longlong" || s == "intp" || s == "uint64" || s == "i8" || s == "int" || s == "long")
    return W_I64;
  return W_32;
}

class NpDtype {
 public:
  NpDtype(const Project& p, const SourceFile& f, std::map<std::string, W>& env) : P(p), F(f), env(env) {}

  W literal(const Node& n) const {
    if (is(n, "Constant")) {
      std::string vk = str_field(n, "vk");
      return vk == "float" ? W_F64 : vk == "int" ? W_I64 : W_UNKNOWN;
    }
    if (is(n, "UnaryOp")) return literal(*field(n, "operand"));
    if (is(n, "List") || is(n, "Tuple")) {
      W r = W_UNKNOWN;
      for (const auto& e : *field(n, "elts")) {
        W w = literal(e);
        if (w == W_UNKNOWN) w = of(e);
        if (w == W_F64) return W_F64;
        if (w == W_I64) r = W_I64;
        else if (w == W_32 && r == W_UNKNOWN) r = W_32;
      }
      return r;
    }
    return W_UNKNOWN;
  }

  W of(const Node& n) const {
    const auto& t = ntype(n);
    if (t == "Name") {
      auto it = env.find(name_of(n));
      return it == env.end() ? W_UNKNOWN : it->second;
    }
    if (t == "Attribute") {
      std::string a = self_attr(n);
      if (!a.empty()) {
        auto it = env.find("self." + a);
        return it == env.end() ? W_UNKNOWN : it->second;
      }
      if (str_field(n, "attr") == "T") return of(*field(n, "value"));
      return W_UNKNOWN;
    }
    if (t == "Subscript") return of(*field(n, "value"));
    if (t == "BinOp") {
      W l = of(*field(n, "left")), r = of(*field(n, "right"));
      if (l == W_UNKNOWN) l = literal(*field(n, "left")) == W_F64 && (r == W_I64) ? W_F64 : W_UNKNOWN;
      if (r == W_UNKNOWN) r = literal(*field(n, "right")) == W_F64 && (l == W_I64) ? W_F64 : W_UNKNOWN;
      if (l == W_F64 || r == W_F64) return W_F64;
      // int64 / anything is float64 in numpy (true division)
      if ((l == W_I64 || r == W_I64) && str_field(n, "op") == "Div") return W_F64;
      if (l == W_I64 || r == W_I64) return (l == W_32 || r == W_32) ? W_32 : W_I64;
      return (l == W_32 || r == W_32) ? W_32 : W_UNKNOWN;
    }
    if (t != "Call") return W_UNKNOWN;
    const Node& fn = *field(n, "func");
    if (is(fn, "Attribute")) {
      std::string m = str_field(fn, "attr");
      const Node& recv = *field(fn, "value");
      if (m == "astype" && arg(n, 0)) return dtype_of(*arg(n, 0));
      if (m == "astype" && kwarg(n, "dtype")) return dtype_of(*kwarg(n, "dtype"));
      W rw = of(recv);
      if (rw == W_RNG) {
        if (m == "integers" || m == "randint") return kwarg(n, "dtype") ? dtype_of(*kwarg(n, "dtype")) : W_I64;
        if (m == "rand" || m == "randn" || m == "normal" || m == "uniform" || m == "standard_normal" || m == "random" ||
            m == "random_sample" || m == "truncated_normal")
          return kwarg(n, "dtype") ? dtype_of(*kwarg(n, "dtype")) : W_F64;
        return W_UNKNOWN;
      }
      if (rw == W_F64 || rw == W_I64) {
        if (m == "reshape" || m == "transpose" || m == "copy" || m == "flatten" || m == "squeeze" || m == "ravel" ||
            m == "clip" || m == "sum" || m == "mean")
          return m == "mean" ? W_F64 : rw;
      }
    }
    std::string q = P.qualname(fn, F);
    if (!under(q, "numpy")) return W_UNKNOWN;
    std::string f = last_part(q);
    const Node* dk = kwarg(n, "dtype");
    if (dk) return dtype_of(*dk);
    bool random = q.find(".random.") != std::string::npos;
    if (random) {
      if (f == "RandomState" || f == "default_rng" || f == "Generator") return W_RNG;
      if (f == "randint" || f == "permutation" || f == "integers") return W_I64;
      if (f == "choice" || f == "shuffle" || f == "seed") return W_UNKNOWN;
      return W_F64;
    }
    if (f == "float64" || f == "double") return W_F64;
    if (f == "int64") return W_I64;
    if (f == "float32" || f == "float16" || f == "int32" || f == "int8" || f == "uint8" || f == "bool_" || f == "int16")
      return W_32;
    if (f == "zeros" || f == "ones" || f == "empty") return arg(n, 1) ? dtype_of(*arg(n, 1)) : W_F64;
    if (f == "eye" || f == "identity" || f == "linspace" || f == "logspace" || f == "hanning" || f == "hamming")
      return W_F64;
    if (f == "full") {
      if (arg(n, 2)) return dtype_of(*arg(n, 2));
      const Node* fill = arg(n, 1) ? arg(n, 1) : kwarg(n, "fill_value");
      return fill ? (literal(*fill) != W_UNKNOWN ? literal(*fill) : of(*fill)) : W_UNKNOWN;
    }
    if (f == "sqrt" || f == "exp" || f == "log" || f == "sin" || f == "cos" || f == "tanh" || f == "mean" ||
        f == "power" || f == "true_divide") {
      // float functions: int64 input gives float64 too
      for (const auto& a : *field(n, "args")) {
        W w = of(a);
        if (w == W_F64 || w == W_I64) return W_F64;
        if (w == W_32) return W_32;
      }
      return W_UNKNOWN;
    }
    if (f == "where" && arg(n, 2)) {
      W a = of(*arg(n, 1)), b = of(*arg(n, 2));
      return a == W_F64 || b == W_F64 ? W_F64 : (a == W_I64 && b == W_I64 ? W_I64 : W_UNKNOWN);
    }
    if (f == "zeros_like" || f == "ones_like" || f == "empty_like" || f == "full_like" || f == "copy" ||
        f == "abs" || f == "transpose" ||
        f == "reshape" || f == "expand_dims" || f == "squeeze" || f == "tril" || f == "triu" || f == "tile" ||
        f == "repeat")
      return arg(n, 0) ? of(*arg(n, 0)) : W_UNKNOWN;
    if (f == "arange") {
      bool any_float = false, all_known = true;
      for (const auto& a : *field(n, "args")) {
        W w = literal(a);
        if (w == W_UNKNOWN) w = of(a);
        if (w == W_F64) any_float = true;
        if (w == W_UNKNOWN) all_known = false;
      }
      (void)all_known;
      return any_float ? W_F64 : W_I64;
    }
    if (f == "array" || f == "asarray" || f == "ascontiguousarray") {
      if (arg(n, 1)) return dtype_of(*arg(n, 1));
      if (!arg(n, 0)) return W_UNKNOWN;
      W w = literal(*arg(n, 0));
      return w != W_UNKNOWN ? w : of(*arg(n, 0));
    }
    if (f == "concatenate" || f == "stack" || f == "vstack" || f == "hstack")
      return arg(n, 0) ? literal(*arg(n, 0)) : W_UNKNOWN;
    if (f == "matmul" || f == "dot" || f == "outer" || f == "add" || f == "multiply")
      return arg(n, 0) && arg(n, 1) ? (of(*arg(n, 0)) == W_F64 || of(*arg(n, 1)) == W_F64 ? W_F64 : W_UNKNOWN) : W_UNKNOWN;
    return W_UNKNOWN;
  }

 private:
  const Project& P;
  const SourceFile& F;
  std::map<std::string, W>& env;
};

bool is_tensor_ctor(const std::string& q) {
  return q == "mindspore.Tensor" || q == "mindspore.tensor" || q == "mindspore.Parameter" || q == "mindspore.from_numpy" ||
         q == "mindspore.Tensor.from_numpy" || q == "mindspore.numpy.asarray" || q == "mindspore.numpy.array";
}

}  // namespace

void rule_l014(RuleContext& ctx) {
  // numpy dtypes of self.X attributes, per class, from every method.
  std::map<const ClassInfo*, std::map<std::string, W>> class_env;
  for (const FunctionInfo* f : ctx.project.cell_scope()) {
    if (!f->cls) continue;
    std::map<std::string, W>& env = class_env[f->cls];
    std::map<std::string, W> local;
    NpDtype nd(ctx.project, *f->file, local);
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Assign")) return;
      W w = nd.of(*field(n, "value"));
      for (const auto& tg : *field(n, "targets")) {
        if (is(tg, "Name")) local[name_of(tg)] = w;
        std::string a = self_attr(tg);
        if (!a.empty() && w != W_UNKNOWN) env["self." + a] = w;
      }
    });
  }
  for (const FunctionInfo* f : ctx.project.cell_scope()) {
    std::map<std::string, W> env;
    if (f->cls) env = class_env[f->cls];
    NpDtype nd(ctx.project, *f->file, env);
    // Statements in source order: assignments update env before later uses are checked.
    for_each_node(*f, [&](const Node& n) {
      if (is(n, "Assign")) {
        W w = nd.of(*field(n, "value"));
        for (const auto& tg : *field(n, "targets"))
          if (is(tg, "Name")) env[name_of(tg)] = w;
        return;
      }
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      std::string q = ctx.project.qualname(fn, *f->file);
      if (!is_tensor_ctor(q)) return;
      const Node* data = arg(n, 0);
      if (!data) data = kwarg(n, "input_data");
      if (!data) data = kwarg(n, "default_input");
      const Node* dt = arg(n, 1);
      if (!dt) dt = kwarg(n, "dtype");
      if (last_part(q) == "Parameter") dt = kwarg(n, "dtype");
      if (dt) {
        W w = dtype_of(*dt);
        if (w == W_F64 || w == W_I64) {
          std::string name = w == W_F64 ? "float64" : "int64";
          ctx.report("MS-L014", *f->file, n, Severity::Warning, Severity::Warning,
                     RuleContext::text(fn) + " created as " + name + " in " + where(*f) +
                         ": 64-bit tensors double the model size and are unsupported or slow on Ascend and most "
                         "inference back ends",
                     std::string("use ") + (w == W_F64 ? "mindspore.float32" : "mindspore.int32"));
        }
        return;
      }
      if (!data) return;
      W w = nd.of(*data);
      if (w != W_F64 && w != W_I64) return;
      std::string name = w == W_F64 ? "float64" : "int64";
      ctx.report("MS-L014", *f->file, n, Severity::Warning, Severity::Warning,
                 RuleContext::text(fn) + " made from a " + name + " numpy array in " + where(*f) +
                     " (numpy's default): the tensor is " + name +
                     ", which doubles its size and is unsupported or slow on Ascend and most inference back ends",
                 std::string("convert first: .astype(np.") + (w == W_F64 ? "float32" : "int32") + "), or pass dtype=" +
                     (w == W_F64 ? "mindspore.float32" : "mindspore.int32"));
    });
  }
}

}  // namespace ms::lint
