// MS-L008: random ops and Dropout in the network. They compile and export, but the exported graph
// keeps them: a network exported while in training mode drops activations at inference time, and
// random ops make the deployed model non-deterministic. Warning: call net.set_train(False) before
// export, and keep random ops behind `if self.training:`.
#include "lint/rules/common.h"

#include <set>

namespace ms::lint {

namespace {

const std::set<std::string> kRandomClasses = {
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "DropoutGenMask",
    "DropoutDoMask", "StandardNormal", "StandardLaplace", "UniformReal", "UniformInt", "RandomChoiceWithMask",
    "Multinomial", "Gamma", "Poisson", "RandomCategorical", "RandomPoisson", "RandomGamma", "Bernoulli", "RandomShuffle",
    "Randperm", "LogUniformCandidateSampler", "UniformCandidateSampler", "DropPath"};
const std::set<std::string> kRandomFunctions = {
    "dropout", "dropout1d", "dropout2d", "dropout3d", "uniform", "normal", "standard_normal", "standard_laplace",
    "randn", "rand", "randint", "rand_like", "randn_like", "randint_like", "multinomial", "random_categorical",
    "bernoulli", "gamma", "poisson", "random_poisson", "random_gamma", "shuffle", "randperm", "laplace", "alpha_dropout",
    "feature_alpha_dropout", "drop_path"};

// A constant-argument Dropout that is the identity (p=0 / keep_prob=1) is not worth reporting.
bool identity_dropout(const Node& call) {
  for (const char* k : {"p", "keep_prob"}) {
    const Node* v = kwarg(call, k);
    if (v && is(*v, "Constant") && field(*v, "value") && field(*v, "value")->is_number()) {
      double d = field(*v, "value")->get<double>();
      if ((std::string(k) == "p" && d == 0.0) || (std::string(k) == "keep_prob" && d == 1.0)) return true;
    }
  }
  return false;
}

}  // namespace

void rule_l008(RuleContext& ctx) {
  const char* hint_drop = "call net.set_train(False) before export so Dropout is the identity";
  // Random cells and primitives created anywhere in a Cell (normally __init__).
  for (const FunctionInfo* f : ctx.project.cell_scope()) {
    if (f->graph) continue;
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      std::string q = ctx.project.qualname(fn, *f->file);
      std::string name = last_part(q.empty() ? dotted(fn) : q);
      if (!kRandomClasses.count(name) || identity_dropout(n)) return;
      if (!q.empty() && !under(q, "mindspore")) return;
      bool drop = name.find("ropout") != std::string::npos || name == "DropPath";
      ctx.report("MS-L008", *f->file, n, Severity::Warning, Severity::Warning,
                 name + " created in " + where(*f) +
                     (drop ? ": exported as-is, it drops activations unless the network is in inference mode"
                           : ": a random op is exported as-is and makes the deployed model non-deterministic"),
                 drop ? hint_drop : "use it only in training (if self.training:), and set_train(False) before export");
    });
  }
  // Random ops called in graph code: functional ones, and the random cells/primitives above.
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      std::string q = ctx.project.qualname(fn, *f->file);
      std::string name;
      if (!q.empty() && under(q, "mindspore") && kRandomFunctions.count(last_part(q))) name = q;
      if (!q.empty() && under(q, "mindspore") && kRandomClasses.count(last_part(q))) name = q;
      if (name.empty()) {
        Kind fk = ctx.kind(*f, fn);
        if ((fk.k == K::Cell || fk.k == K::Primitive) && kRandomClasses.count(fk.ctor)) {
          name = RuleContext::text(fn);
          // self.drop = nn.Dropout(p=0.0) in __init__ is the identity
          std::string a = self_attr(fn);
          const AttrInfo* ai = f->cls && !a.empty() ? ctx.project.find_attr(f->cls, a) : nullptr;
          if (ai && ai->value && is(*ai->value, "Call") && identity_dropout(*ai->value)) return;
        }
      }
      if (name.empty() || identity_dropout(n)) return;
      bool drop = name.find("ropout") != std::string::npos || name.find("drop") != std::string::npos;
      ctx.report("MS-L008", *f->file, n, Severity::Warning, Severity::Warning,
                 name + "(...) in " + where(*f) +
                     (drop ? ": Dropout stays in the exported graph unless the network is in inference mode"
                           : ": a random op in the exported graph makes inference non-deterministic"),
                 drop ? hint_drop : "guard it with `if self.training:` and call set_train(False) before export");
    });
  }
}

}  // namespace ms::lint
