// MS-L005: numpy, cv2, PIL (and scipy) calls and Tensor.asnumpy() in graph code. GRAPH_MODE cannot
// run third-party Python on graph values: .asnumpy() is never supported, numpy on tensors is
// rejected (1.x) or executed by JIT fallback in the Python interpreter (2.x), and either way the
// computation is not part of the exported MindIR. numpy on compile-time constants is tolerated by 2.x's
// fallback but still leaves the export with a baked-in constant at best.
#include "lint/rules/common.h"

namespace ms::lint {

void rule_l005(RuleContext& ctx) {
  for (const FunctionInfo* f : ctx.project.graph_functions()) {
    for_each_node(*f, [&](const Node& n) {
      if (!is(n, "Call")) return;
      const Node& fn = *field(n, "func");
      if (is(fn, "Attribute")) {
        std::string m = str_field(fn, "attr");
        const Node& recv = *field(fn, "value");
        Kind rk = ctx.kind(*f, recv);
        if (m == "asnumpy" || (m == "numpy" && rk.tensor())) {
          ctx.report("MS-L005", *f->file, n, Severity::Error, Severity::Error,
                     RuleContext::text(recv) + "." + m + "() in " + where(*f) +
                         ": converting a tensor to numpy is not supported in GRAPH_MODE and cannot be exported",
                     "keep the computation in MindSpore ops (ops.*, Tensor methods); convert to numpy outside the network");
          return;
        }
      }
      std::string q = ctx.project.qualname(fn, *f->file);
      if (q.empty()) return;
      bool np = under(q, "numpy") || under(q, "scipy");
      bool img = under(q, "cv2") || under(q, "PIL") || under(q, "skimage");
      if (!np && !img) return;
      bool on_tensor = false;
      auto runtime = [&](const Node& a) {
        Kind k = ctx.kind(*f, a);
        return k.tensor() || k.k == K::RuntimeList;
      };
      for (const auto& a : *field(n, "args"))
        if (runtime(a)) on_tensor = true;
      for (const auto& kw : *field(n, "keywords"))
        if (runtime(*field(kw, "value"))) on_tensor = true;
      std::string lib = img ? q.substr(0, q.find('.')) : "numpy";
      if (img) {
        ctx.report("MS-L005", *f->file, n, Severity::Error, Severity::Error,
                   q + "() in " + where(*f) + ": image libraries cannot run inside a compiled graph",
                   "do image preprocessing in the data pipeline (mindspore.dataset.vision) before the network");
      } else if (on_tensor) {
        ctx.report("MS-L005", *f->file, n, Severity::Error, Severity::Error,
                   q + "() on tensor values in " + where(*f) +
                       ": numpy cannot run on graph tensors; at best JIT fallback runs it in Python and it is left out of "
                       "the exported MindIR",
                   "use the matching MindSpore op (ops.*, mindspore.numpy) instead of " + q);
      } else {
        ctx.report("MS-L005", *f->file, n, Severity::Warning, Severity::Error,
                   q + "() in " + where(*f) +
                       ": numpy in construct runs through JIT fallback at compile time (2.x) or is rejected (1.x)",
                   "compute constants in __init__ (store them as Python values or Tensors), or use mindspore ops");
      }
    });
  }
}

}  // namespace ms::lint
