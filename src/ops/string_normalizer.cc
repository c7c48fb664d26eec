// StringNormalizer: drops stopwords (case-sensitive or not) from a [C] or [1, C] string tensor and
// optionally upper/lower-cases the rest; an all-removed input gives a single empty string.
#include <cctype>
#include <set>

#include "ops/kernel_util.h"

namespace ms {

namespace {
// ASCII case mapping; bytes of multi-byte UTF-8 characters are left as they are.
std::string map_case(std::string s, bool upper) {
  for (auto& ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x80) ch = static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
  }
  return s;
}
}  // namespace

void register_op_string_normalizer(OpRegistry& r) {
  r.add(OpDef("StringNormalizer")
            .inputs(1)
            .outputs(1)
            .attr_string("case_change_action", "NONE")
            .attr_int("is_case_sensitive", 0)
            .attr("locale", AttrType::String, false)
            .attr_strings("stopwords")
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& t = ctx.input_type(0);
              std::vector<Dim> dims = t.shape ? *t.shape : std::vector<Dim>{Dim{}};
              if (!dims.empty()) dims.back() = Dim{};
              ctx.set_output_type(0, TypeInfo::tensor(DType::String, dims));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              if (x.dtype() != DType::String) fail("{}: input must be strings, got {}", who, dtype_name(x.dtype()));
              if (!(x.rank() == 1 || (x.rank() == 2 && x.dim(0) == 1)))
                fail("{}: input must be [C] or [1, C], got {}", who, shape_str(x.shape()));
              const std::string action = ctx.attr_string("case_change_action");
              if (action != "NONE" && action != "UPPER" && action != "LOWER")
                fail("{}: case_change_action must be NONE, UPPER or LOWER, got '{}'", who, action);
              const bool sensitive = ctx.attr_int("is_case_sensitive") != 0;
              std::set<std::string> stop;
              for (const auto& s : ctx.attr_strings("stopwords")) stop.insert(sensitive ? s : map_case(s, false));
              std::vector<std::string> kept;
              const std::string* in = x.data<std::string>();
              for (int64_t i = 0; i < x.numel(); ++i) {
                if (stop.count(sensitive ? in[i] : map_case(in[i], false))) continue;
                kept.push_back(action == "NONE" ? in[i] : map_case(in[i], action == "UPPER"));
              }
              if (kept.empty()) kept.push_back("");
              const int64_t n = static_cast<int64_t>(kept.size());
              ctx.set_output(0, Tensor::from_vector(kept, x.rank() == 1 ? Shape{n} : Shape{1, n}));
            }));
}

}  // namespace ms
