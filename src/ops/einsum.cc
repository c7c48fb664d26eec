// Einsum: y[out labels] = sum over the other labels of prod_i x_i[labels of i], numpy rules:
// repeated labels take diagonals, "..." stands for broadcast leading dims, and without "->"
// the output is "..." followed by the labels used once, in alphabetical order.
#include <map>

#include "ops/reduce_util.h"

namespace ms {
namespace {

// Labels are ints: letters map to their char code, ellipsis dim j (of E) to 256 + j.
constexpr int kEllBase = 256;

struct EinsumPlan {
  std::vector<std::vector<int>> in_labels;  // per operand, one label per dim
  std::vector<int> out_labels;
};

// Parses one term ("ab...c") for an operand of `rank` dims (rank < 0 = the output term).
std::vector<int> parse_term(const std::string& term, int64_t rank, int64_t ell_rank, bool* has_ell,
                            const std::string& label) {
  std::vector<int> letters_before, letters_after;
  *has_ell = false;
  for (size_t i = 0; i < term.size(); ++i) {
    char ch = term[i];
    if (ch == '.') {
      if (*has_ell || term.compare(i, 3, "...") != 0) fail("{}: malformed ellipsis in einsum term '{}'", label, term);
      *has_ell = true;
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(ch))) {
      (*has_ell ? letters_after : letters_before).push_back(ch);
    } else {
      fail("{}: invalid character '{}' in einsum term '{}'", label, ch, term);
    }
  }
  const int64_t nl = static_cast<int64_t>(letters_before.size() + letters_after.size());
  int64_t e = 0;
  if (rank >= 0) {
    e = rank - nl;
    if (e < 0 || (!*has_ell && e != 0))
      fail("{}: einsum term '{}' does not match an operand of rank {}", label, term, rank);
  } else {
    e = *has_ell ? ell_rank : 0;
  }
  std::vector<int> out = letters_before;
  for (int64_t j = 0; j < e; ++j) out.push_back(static_cast<int>(kEllBase + ell_rank - e + j));
  out.insert(out.end(), letters_after.begin(), letters_after.end());
  return out;
}

EinsumPlan plan_einsum(const std::string& eq_in, const std::vector<int64_t>& ranks, const std::string& label) {
  std::string eq;
  for (char ch : eq_in)
    if (!std::isspace(static_cast<unsigned char>(ch))) eq += ch;
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  size_t start = 0;
  for (size_t p; (p = lhs.find(',', start)) != std::string::npos; start = p + 1) terms.push_back(lhs.substr(start, p - start));
  terms.push_back(lhs.substr(start));
  if (terms.size() != ranks.size())
    fail("{}: equation '{}' has {} operands but the node has {} inputs", label, eq_in, terms.size(), ranks.size());
  // Ellipsis rank: the largest number of dims any "..." covers.
  int64_t ell = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t letters = 0;
    for (char ch : terms[i]) letters += std::isalpha(static_cast<unsigned char>(ch)) ? 1 : 0;
    ell = std::max(ell, ranks[i] - letters);
  }
  EinsumPlan plan;
  bool any_ell = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool h = false;
    plan.in_labels.push_back(parse_term(terms[i], ranks[i], ell, &h, label));
    any_ell |= h;
  }
  if (arrow != std::string::npos) {
    bool h = false;
    plan.out_labels = parse_term(eq.substr(arrow + 2), -1, ell, &h, label);
    std::vector<int> seen = plan.out_labels;
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) fail("{}: einsum output repeats a label", label);
    for (int l : plan.out_labels) {
      bool found = false;
      for (const auto& in : plan.in_labels) found |= std::find(in.begin(), in.end(), l) != in.end();
      if (!found) fail("{}: einsum output label '{}' does not appear in the inputs", label, static_cast<char>(l));
    }
  } else {
    std::map<int, int> count;
    for (const auto& in : plan.in_labels)
      for (int l : in) count[l]++;
    if (any_ell)
      for (int64_t j = 0; j < ell; ++j) plan.out_labels.push_back(static_cast<int>(kEllBase + j));
    for (auto [l, c] : count)
      if (l < kEllBase && c == 1) plan.out_labels.push_back(l);
  }
  return plan;
}

}  // namespace

void register_op_einsum(OpRegistry& r) {
  r.add(OpDef("Einsum")
            .inputs(1, -1)
            .outputs(1)
            .attr("equation", AttrType::String, true)
            .infer_fn([](InferContext& ctx) {
              // Output dims come from the label sizes; only with fully known input shapes.
              std::vector<int64_t> ranks;
              std::map<int, Dim> size;
              std::vector<const TypeInfo*> ts;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                ts.push_back(&ctx.input_type(i));
                if (!ts.back()->shape) {
                  ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(ts[0]->dtype));
                  return;
                }
                ranks.push_back(static_cast<int64_t>(ts.back()->shape->size()));
              }
              EinsumPlan plan = plan_einsum(ctx.attr_string("equation"), ranks, ctx.node().label());
              for (size_t i = 0; i < ts.size(); ++i)
                for (size_t d = 0; d < plan.in_labels[i].size(); ++d) {
                  const Dim& dim = (*ts[i]->shape)[d];
                  auto it = size.find(plan.in_labels[i][d]);
                  if (it == size.end() || (it->second.is_static() && it->second.value == 1)) size[plan.in_labels[i][d]] = dim;
                  else if (!(dim.is_static() && dim.value == 1) && !it->second.is_static())
                    it->second = dim.is_static() || dim.param == it->second.param ? dim : Dim{};
                }
              std::vector<Dim> out;
              for (int l : plan.out_labels) out.push_back(size[l]);
              ctx.set_output_type(0, TypeInfo::tensor(ts[0]->dtype, out));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string label = ctx.node().label();
              std::vector<const Tensor*> xs;
              std::vector<int64_t> ranks;
              for (size_t i = 0; i < ctx.num_inputs(); ++i) {
                xs.push_back(&ctx.input(i));
                ranks.push_back(xs.back()->rank());
                if (xs.back()->dtype() != xs[0]->dtype()) fail("{}: inputs have different dtypes", label);
              }
              EinsumPlan plan = plan_einsum(ctx.attr_string("equation"), ranks, label);
              // Size of every label; size-1 dims broadcast.
              std::map<int, int64_t> size;
              for (size_t i = 0; i < xs.size(); ++i)
                for (size_t d = 0; d < plan.in_labels[i].size(); ++d) {
                  int l = plan.in_labels[i][d];
                  int64_t s = xs[i]->dim(static_cast<int>(d));
                  auto it = size.find(l);
                  if (it == size.end() || it->second == 1) size[l] = s;
                  else if (s != 1 && s != it->second)
                    fail("{}: einsum label has sizes {} and {}", label, it->second, s);
                }
              // Iteration order: output labels, then the summed ones.
              std::vector<int> all = plan.out_labels;
              for (auto [l, s] : size)
                if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
              Shape out_shape;
              for (int l : plan.out_labels) out_shape.push_back(size[l]);
              std::vector<int64_t> dims;
              for (int l : all) dims.push_back(size[l]);
              // Per operand, its stride along each iteration label (repeated labels add up: diagonal).
              std::vector<std::vector<int64_t>> strides(xs.size(), std::vector<int64_t>(all.size(), 0));
              for (size_t i = 0; i < xs.size(); ++i) {
                auto st = strides_of(xs[i]->shape());
                for (size_t d = 0; d < plan.in_labels[i].size(); ++d) {
                  if (xs[i]->dim(static_cast<int>(d)) == 1) continue;
                  size_t pos = std::find(all.begin(), all.end(), plan.in_labels[i][d]) - all.begin();
                  strides[i][pos] += st[d];
                }
              }
              Tensor y(xs[0]->dtype(), out_shape);
              const int64_t total = shape_numel(dims), n_out = shape_numel(out_shape);
              const int64_t n_sum = n_out == 0 ? 0 : total / n_out;
              dispatch_all_numeric(y.dtype(), label, [&](auto tag) {
                using T = typename decltype(tag)::type;
                using A = acc_t<T>;
                std::vector<const T*> ptr;
                for (auto* x : xs) ptr.push_back(x->data<T>());
                std::vector<A> acc(n_out, A(0));
                std::vector<int64_t> idx(all.size(), 0), off(xs.size(), 0);
                for (int64_t t = 0; t < total; ++t) {
                  A p = A(1);
                  for (size_t i = 0; i < xs.size(); ++i) p *= to_acc<A>(ptr[i][off[i]]);
                  acc[t / n_sum] += p;
                  for (int d = static_cast<int>(all.size()) - 1; d >= 0; --d) {
                    for (size_t i = 0; i < xs.size(); ++i) off[i] += strides[i][d];
                    if (++idx[d] < dims[d]) break;
                    for (size_t i = 0; i < xs.size(); ++i) off[i] -= strides[i][d] * dims[d];
                    idx[d] = 0;
                  }
                }
                T* out = y.data<T>();
                for (int64_t o = 0; o < n_out; ++o) out[o] = from_acc<T>(acc[o]);
              });
              ctx.set_output(0, std::move(y));
            }));
}

}  // namespace ms
