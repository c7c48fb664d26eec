#include "lint/analysis.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>

namespace ms::lint {

bool is_self(const Node& n) { return name_of(n) == "self"; }

std::string self_attr(const Node& n) {
  if (!is(n, "Attribute")) return "";
  const Node* v = field(n, "value");
  return v && is_self(*v) ? str_field(n, "attr") : std::string();
}

std::string dotted(const Node& n) {
  if (is(n, "Name")) return str_field(n, "id");
  if (is(n, "Attribute")) {
    const Node* v = field(n, "value");
    if (!v) return "";
    std::string base = dotted(*v);
    return base.empty() ? "" : base + "." + str_field(n, "attr");
  }
  return "";
}

bool int_const(const Node& n, long long& v) {
  if (is(n, "Constant") && str_field(n, "vk") == "int" && field(n, "value") && field(n, "value")->is_number_integer()) {
    v = field(n, "value")->get<long long>();
    return true;
  }
  if (is(n, "UnaryOp") && str_field(n, "op") == "USub" && field(n, "operand")) {
    if (int_const(*field(n, "operand"), v)) {
      v = -v;
      return true;
    }
  }
  return false;
}

bool under(const std::string& qual, const char* mod) {
  size_t n = std::strlen(mod);
  return qual.compare(0, n, mod) == 0 && (qual.size() == n || qual[n] == '.');
}

std::string last_part(const std::string& d) {
  auto p = d.rfind('.');
  return p == std::string::npos ? d : d.substr(p + 1);
}

Kind join(const Kind& a, const Kind& b) {
  if (a.k == K::Unknown) return b;
  if (b.k == K::Unknown) return a;
  if (a.k == K::Tensor || b.k == K::Tensor) {
    Kind r;
    r.k = K::Tensor;
    r.dyn = (a.k == K::Tensor && a.dyn) || (b.k == K::Tensor && b.dyn);
    r.mask = a.k == K::Tensor && b.k == K::Tensor && a.mask && b.mask;
    return r;
  }
  if (a.k == K::RuntimeList || b.k == K::RuntimeList) return Kind{K::RuntimeList};
  if (a.k == b.k) return a.ctor == b.ctor ? a : Kind{a.k};
  return Kind{};
}

namespace {

const std::set<std::string> kDynShapeOps = {"masked_select", "MaskedSelect", "nonzero", "NonZero", "unique",
                                            "Unique", "unique_consecutive", "UniqueConsecutive", "argwhere",
                                            "Argwhere", "masked_select_", "boolean_mask", "DynamicShape"};
const std::set<std::string> kGraphModules = {"mindspore.ops", "mindspore.mint", "mindspore.numpy", "mindspore.nn.functional",
                                             "mindspore.scipy"};

bool is_graph_op_module(const std::string& q) {
  for (const auto& m : kGraphModules)
    if (under(q, m.c_str())) return true;
  return false;
}

bool has_decorator(const Node& def, std::initializer_list<const char*> names) {
  const Node* decs = field(def, "decorator_list");
  if (!decs) return false;
  for (const auto& d : *decs) {
    const Node& target = is(d, "Call") && field(d, "func") ? *field(d, "func") : d;
    std::string nm = last_part(dotted(target));
    for (const char* n : names)
      if (nm == n) return true;
  }
  return false;
}

}  // namespace

// --- project indexing ---------------------------------------------------------------------------

Project::Project(std::vector<ParsedFile> files) {
  for (auto& pf : files) {
    auto f = std::make_unique<SourceFile>();
    f->path = pf.path;
    f->module = std::move(pf.ast);
    files_.push_back(std::move(f));
  }
  for (auto& f : files_) index_file(*f);
  resolve_classes();
  collect_attrs();
  find_graph_functions();
  // Attributes assigned only in graph functions are not attributes the Cell has at export time
  // (MS-L006 reports them): collect again, this time skipping every graph method.
  for (auto& c : classes_)
    for (auto it = c->attrs.begin(); it != c->attrs.end();)
      it = it->second.class_level ? std::next(it) : c->attrs.erase(it);
  collect_attrs();
  infer_all();
}

void Project::index_file(SourceFile& f) {
  // Conventional aliases, used when the file does not import the name itself (snippets).
  std::map<std::string, std::string> defaults = {
      {"np", "numpy"}, {"numpy", "numpy"}, {"ops", "mindspore.ops"}, {"P", "mindspore.ops.operations"},
      {"F", "mindspore.ops.functional"}, {"C", "mindspore.ops.composite"}, {"nn", "mindspore.nn"},
      {"ms", "mindspore"}, {"mindspore", "mindspore"}, {"mnp", "mindspore.numpy"}, {"mint", "mindspore.mint"},
      {"cv2", "cv2"}, {"Tensor", "mindspore.Tensor"}, {"Parameter", "mindspore.Parameter"},
      {"mstype", "mindspore.common.dtype"}};
  const Node* body = field(f.module, "body");
  if (body) {
    walk(*body, [&](const Node& n) {
      const auto& t = ntype(n);
      if (t == "Import") {
        for (const auto& a : *field(n, "names")) {
          std::string name = str_field(a, "name"), as = str_field(a, "asname");
          if (!as.empty()) f.aliases[as] = name;
          else f.aliases[name.substr(0, name.find('.'))] = name.substr(0, name.find('.'));
        }
      } else if (t == "ImportFrom") {
        std::string mod = str_field(n, "module");
        for (const auto& a : *field(n, "names")) {
          std::string name = str_field(a, "name"), as = str_field(a, "asname");
          if (name == "*") continue;
          f.aliases[as.empty() ? name : as] = mod.empty() ? name : mod + "." + name;
        }
      }
    });
  }
  for (const auto& [k, v] : defaults) f.aliases.emplace(k, v);
  // Normalise common MindSpore re-exports so that rules can match one spelling.
  for (auto& [k, v] : f.aliases) {
    if (v == "mindspore.common.tensor.Tensor" || v == "mindspore.common.Tensor") v = "mindspore.Tensor";
    if (v == "mindspore.common.parameter.Parameter" || v == "mindspore.common.Parameter") v = "mindspore.Parameter";
  }

  if (!body) return;
  for (const auto& st : *body) {
    const auto& t = ntype(st);
    if (t == "FunctionDef" || t == "AsyncFunctionDef") {
      auto fn = std::make_unique<FunctionInfo>();
      fn->def = &st;
      fn->file = &f;
      fn->name = str_field(st, "name");
      fn->constexpr_ = has_decorator(st, {"constexpr", "_primexpr", "primexpr"});
      fn->jit = has_decorator(st, {"jit", "ms_function"});
      func_by_name_.emplace(fn->name, fn.get());
      functions_.push_back(std::move(fn));
    } else if (t == "ClassDef") {
      auto c = std::make_unique<ClassInfo>();
      c->name = str_field(st, "name");
      c->def = &st;
      c->file = &f;
      for (const auto& b : *field(st, "bases")) {
        std::string q = qualname(b, f);
        if (q.empty()) q = dotted(b);
        c->base_quals.push_back(q);
      }
      for (const auto& m : *field(st, "body")) {
        const auto& mt = ntype(m);
        if (mt == "FunctionDef" || mt == "AsyncFunctionDef") {
          auto fn = std::make_unique<FunctionInfo>();
          fn->def = &m;
          fn->file = &f;
          fn->cls = c.get();
          fn->name = str_field(m, "name");
          fn->constexpr_ = has_decorator(m, {"constexpr", "_primexpr", "primexpr"});
          fn->jit = has_decorator(m, {"jit", "ms_function"});
          c->methods[fn->name] = fn.get();
          functions_.push_back(std::move(fn));
        } else if (mt == "Assign" || mt == "AnnAssign") {
          const Node* targets = field(m, "targets");
          std::vector<const Node*> ts;
          if (targets) for (const auto& x : *targets) ts.push_back(&x);
          else if (field(m, "target")) ts.push_back(field(m, "target"));
          for (const Node* x : ts)
            if (is(*x, "Name")) {
              AttrInfo ai;
              ai.class_level = true;
              ai.where = &m;
              ai.value = field(m, "value");
              c->attrs.emplace(name_of(*x), ai);
            }
        }
      }
      class_by_name_.emplace(c->name, c.get());
      classes_.push_back(std::move(c));
    }
  }
}

std::string Project::qualname(const Node& expr, const SourceFile& f) const {
  std::string d = dotted(expr);
  if (d.empty()) return "";
  auto dot = d.find('.');
  std::string root = d.substr(0, dot);
  auto it = f.aliases.find(root);
  if (it == f.aliases.end()) return "";
  return it->second + (dot == std::string::npos ? "" : d.substr(dot));
}

void Project::resolve_classes() {
  for (auto& c : classes_) {
    for (size_t i = 0; i < c->base_quals.size(); ++i) {
      std::string bname = last_part(c->base_quals[i]);
      ClassInfo* found = nullptr;
      auto range = class_by_name_.equal_range(bname);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == c.get()) continue;
        if (it->second->file == c->file) { found = it->second; break; }
        if (!found) found = it->second;
      }
      // A base imported from mindspore is never one of ours, even if a class of that name exists.
      if (found && !under(c->base_quals[i], "mindspore")) c->bases.push_back(found);
    }
  }
  // Cell-ness: a base from mindspore.nn (every public class there is a Cell), a base named Cell,
  // or a base class of ours that is a Cell. Iterate to a fixed point (any order of definition).
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& c : classes_) {
      if (c->is_cell) continue;
      bool cell = false;
      for (const auto& q : c->base_quals) {
        std::string last = last_part(q);
        if (last == "Cell" || (under(q, "mindspore.nn") && !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) &&
                               last != "Optimizer" && last != "Metric"))
          cell = true;
      }
      for (auto* b : c->bases)
        if (b->is_cell) cell = true;
      if (cell) {
        c->is_cell = true;
        changed = true;
      }
    }
  }
}

FunctionInfo* Project::find_method(const ClassInfo* c, const std::string& name) const {
  std::set<const ClassInfo*> seen;
  std::deque<const ClassInfo*> q{c};
  while (!q.empty()) {
    const ClassInfo* x = q.front();
    q.pop_front();
    if (!x || !seen.insert(x).second) continue;
    auto it = x->methods.find(name);
    if (it != x->methods.end()) return it->second;
    for (auto* b : x->bases) q.push_back(b);
  }
  return nullptr;
}

const AttrInfo* Project::find_attr(const ClassInfo* c, const std::string& name) const {
  std::set<const ClassInfo*> seen;
  std::deque<const ClassInfo*> q{c};
  while (!q.empty()) {
    const ClassInfo* x = q.front();
    q.pop_front();
    if (!x || !seen.insert(x).second) continue;
    auto it = x->attrs.find(name);
    if (it != x->attrs.end()) return &it->second;
    for (auto* b : x->bases) q.push_back(b);
  }
  return nullptr;
}

Kind Project::kind(const FunctionInfo& fn, const Node& expr) const {
  auto it = fn.kinds.find(&expr);
  return it == fn.kinds.end() ? Kind{} : it->second;
}

FunctionInfo* Project::resolve_call(const FunctionInfo& caller, const Node& call) const {
  const Node* func = field(call, "func");
  if (!func) return nullptr;
  FunctionInfo* r = nullptr;
  if (is(*func, "Name")) {
    std::string nm = name_of(*func);
    auto range = func_by_name_.equal_range(nm);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second->file == caller.file) return it->second;
      if (!r) r = it->second;
    }
    // Only functions the caller's file can see: defined there, or imported by that name from a
    // module that is not a library we know.
    if (r) {
      auto al = caller.file->aliases.find(nm);
      if (al == caller.file->aliases.end() || under(al->second, "mindspore") || under(al->second, "numpy")) return nullptr;
    }
    return r;
  }
  if (is(*func, "Attribute")) {
    const Node* recv = field(*func, "value");
    std::string attr = str_field(*func, "attr");
    if (recv && is_self(*recv) && caller.cls) {
      if (find_attr(caller.cls, attr)) return nullptr;  // a sub-cell or primitive, not a method
      return find_method(caller.cls, attr);
    }
    // super().m(...) / Base.m(self, ...)
    if (recv && is(*recv, "Call") && name_of(*field(*recv, "func")) == "super" && caller.cls) {
      for (auto* b : caller.cls->bases)
        if (auto* m = find_method(b, attr)) return m;
      return nullptr;
    }
    if (recv && is(*recv, "Name")) {
      std::string rn = name_of(*recv);
      auto range = class_by_name_.equal_range(rn);
      for (auto it = range.first; it != range.second; ++it)
        if (auto* m = find_method(it->second, attr)) return m;
      // module.func(...) for a module of the project (not a known library)
      std::string q = qualname(*func, *caller.file);
      if (!q.empty() && !under(q, "mindspore") && !under(q, "numpy") && !under(q, "cv2") && !under(q, "PIL") &&
          !under(q, "math")) {
        auto fr = func_by_name_.equal_range(attr);
        if (fr.first != fr.second) return fr.first->second;
      }
    }
  }
  return nullptr;
}

// --- type inference -------------------------------------------------------------------------------

class Inferrer {
 public:
  Inferrer(Project& p, FunctionInfo& f, bool record_attrs) : P(p), F(f), record_attrs_(record_attrs) {}

  void run() {
    std::map<std::string, Kind> env;
    const Node& def = *F.def;
    const Node* args = field(def, "args");
    bool root = F.graph && F.cls && F.cls->is_cell && F.name == "construct";
    if (args) {
      std::vector<const Node*> params;
      for (const char* key : {"posonlyargs", "args", "kwonlyargs"})
        if (const Node* a = field(*args, key))
          for (const auto& x : *a) params.push_back(&x);
      // defaults align with the last positional args
      std::map<const Node*, const Node*> defaults;
      if (const Node* d = field(*args, "defaults")) {
        std::vector<const Node*> pos;
        for (const char* key : {"posonlyargs", "args"})
          if (const Node* a = field(*args, key))
            for (const auto& x : *a) pos.push_back(&x);
        size_t nd = d->size();
        for (size_t i = 0; i < nd && i < pos.size(); ++i) defaults[pos[pos.size() - nd + i]] = &(*d)[i];
      }
      if (const Node* kwd = field(*args, "kw_defaults")) {
        const Node* kwo = field(*args, "kwonlyargs");
        for (size_t i = 0; kwo && i < kwd->size() && i < kwo->size(); ++i)
          if (!(*kwd)[i].is_null()) defaults[&(*kwo)[i]] = &(*kwd)[i];
      }
      for (const Node* a : params) {
        std::string nm = str_field(*a, "arg");
        if (nm == "self" || nm == "cls") continue;
        Kind k;
        if (root || F.jit) {
          k.k = K::Tensor;
          auto dit = defaults.find(a);
          if (dit != defaults.end() && is(*dit->second, "Constant") && str_field(*dit->second, "vk") != "None") k = Kind{K::Scalar};
          if (const Node* ann = field(*a, "annotation")) {
            std::string an = dotted(*ann);
            if (an == "int" || an == "float" || an == "bool" || an == "str") k = Kind{K::Scalar};
          }
        } else {
          auto pk = F.param_kinds.find(nm);
          if (pk != F.param_kinds.end()) k = pk->second;
        }
        env[nm] = k;
      }
      if (const Node* va = field(*args, "vararg")) env[str_field(*va, "arg")] = Kind{K::List};
      if (const Node* kw = field(*args, "kwarg")) env[str_field(*kw, "arg")] = Kind{K::Dict};
    }
    if (const Node* body = field(def, "body")) stmts(*body, env);
  }

 private:
  using Env = std::map<std::string, Kind>;
  Project& P;
  FunctionInfo& F;
  bool record_attrs_;

  static Env join_env(const Env& a, const Env& b) {
    Env r = a;
    for (const auto& [k, v] : b) {
      auto it = r.find(k);
      r[k] = it == r.end() ? v : join(it->second, v);
    }
    return r;
  }

  void stmts(const Node& list, Env& env) {
    for (const auto& s : list) stmt(s, env);
  }

  void stmt(const Node& s, Env& env) {
    const auto& t = ntype(s);
    if (t == "Assign") {
      Kind k = expr(*field(s, "value"), env);
      for (const auto& tg : *field(s, "targets")) assign(tg, k, field(s, "value"), env, &s);
    } else if (t == "AnnAssign") {
      if (const Node* v = field(s, "value")) {
        Kind k = expr(*v, env);
        assign(*field(s, "target"), k, v, env, &s);
      }
    } else if (t == "AugAssign") {
      const Node& tg = *field(s, "target");
      Kind r = expr(*field(s, "value"), env);
      Kind l = expr(tg, env);
      Kind k = binop(l, r);
      if (is(tg, "Name")) env[name_of(tg)] = k;
      else if (record_attrs_) record_attr(tg, k, field(s, "value"), &s);
    } else if (t == "If") {
      expr(*field(s, "test"), env);
      Env a = env, b = env;
      stmts(*field(s, "body"), a);
      if (const Node* o = field(s, "orelse")) stmts(*o, b);
      env = join_env(a, b);
    } else if (t == "While") {
      for (int pass = 0; pass < 2; ++pass) {
        expr(*field(s, "test"), env);
        Env a = env;
        stmts(*field(s, "body"), a);
        env = join_env(env, a);
      }
      if (const Node* o = field(s, "orelse")) stmts(*o, env);
    } else if (t == "For" || t == "AsyncFor") {
      Kind it = expr(*field(s, "iter"), env);
      for (int pass = 0; pass < 2; ++pass) {
        Env a = env;
        bind_iter(*field(s, "target"), *field(s, "iter"), it, a);
        stmts(*field(s, "body"), a);
        env = join_env(env, a);
      }
      if (const Node* o = field(s, "orelse")) stmts(*o, env);
    } else if (t == "With" || t == "AsyncWith") {
      for (const auto& item : *field(s, "items")) {
        Kind k = expr(*field(item, "context_expr"), env);
        if (const Node* v = field(item, "optional_vars")) assign(*v, k, nullptr, env, &s);
      }
      stmts(*field(s, "body"), env);
    } else if (t == "Try" || t == "TryStar") {
      stmts(*field(s, "body"), env);
      for (const auto& h : *field(s, "handlers")) {
        std::string nm = str_field(h, "name");
        if (!nm.empty()) env[nm] = Kind{};
        stmts(*field(h, "body"), env);
      }
      if (const Node* o = field(s, "orelse")) stmts(*o, env);
      if (const Node* o = field(s, "finalbody")) stmts(*o, env);
    } else if (t == "FunctionDef" || t == "AsyncFunctionDef") {
      env[str_field(s, "name")] = Kind{K::Callable};
      Env inner = env;
      if (const Node* a = field(s, "args"))
        for (const char* key : {"posonlyargs", "args", "kwonlyargs"})
          if (const Node* l = field(*a, key))
            for (const auto& x : *l) inner[str_field(x, "arg")] = Kind{};
      stmts(*field(s, "body"), inner);
    } else if (t == "ClassDef") {
      env[str_field(s, "name")] = Kind{K::Callable};
    } else if (t == "Return" || t == "Expr") {
      if (const Node* v = field(s, "value")) expr(*v, env);
    } else {
      // Assert, Raise, Delete, Global, Pass...: visit expressions for their kinds.
      for (auto it = s.begin(); it != s.end(); ++it)
        if (it->is_object() && !ntype(*it).empty()) expr(*it, env);
    }
  }

  void record_attr(const Node& target, const Kind& k, const Node* value, const Node* stmt) {
    std::string a = self_attr(target);
    if (a.empty() || !F.cls) return;
    auto it = F.cls->attrs.find(a);
    if (it == F.cls->attrs.end()) {
      AttrInfo ai;
      ai.kind = k;
      ai.value = value;
      ai.where = stmt;
      F.cls->attrs.emplace(a, ai);
    } else {
      it->second.kind = join(it->second.kind, k);
    }
  }

  void assign(const Node& target, const Kind& k, const Node* value, Env& env, const Node* stmt) {
    const auto& t = ntype(target);
    if (t == "Name") {
      env[name_of(target)] = k;
    } else if (t == "Tuple" || t == "List") {
      const Node& elts = *field(target, "elts");
      bool literal = value && (is(*value, "Tuple") || is(*value, "List")) && field(*value, "elts")->size() == elts.size();
      for (size_t i = 0; i < elts.size(); ++i) {
        Kind ek;
        if (literal) ek = P.kind(F, (*field(*value, "elts"))[i]);
        else ek = element(k);
        if (is(elts[i], "Starred")) assign(*field(elts[i], "value"), Kind{K::List}, nullptr, env, stmt);
        else assign(elts[i], ek, nullptr, env, stmt);
      }
    } else if (t == "Attribute") {
      expr(*field(target, "value"), env);
      if (record_attrs_) record_attr(target, k, value, stmt);
    } else if (t == "Subscript") {
      expr(*field(target, "value"), env);
      expr(*field(target, "slice"), env);
    } else if (t == "Starred") {
      assign(*field(target, "value"), Kind{K::List}, nullptr, env, stmt);
    }
  }

  static Kind element(const Kind& k) {
    switch (k.k) {
      case K::Shape: return Kind{K::Scalar};
      case K::Tensor: { Kind r{K::Tensor}; r.dyn = k.dyn; return r; }
      case K::RuntimeList: return Kind{K::RuntimeList};
      case K::Numpy: return Kind{K::Numpy};
      case K::CellList: return Kind{K::Cell};
      default: return Kind{};
    }
  }

  void bind_iter(const Node& target, const Node& iter, const Kind& it, Env& env) {
    if (is(iter, "Call")) {
      std::string fn = name_of(*field(iter, "func"));
      const Node& args = *field(iter, "args");
      if (fn == "range") {
        assign(target, Kind{K::Scalar}, nullptr, env, nullptr);
        return;
      }
      if (fn == "enumerate" && !args.empty() && is(target, "Tuple") && field(target, "elts")->size() == 2) {
        assign((*field(target, "elts"))[0], Kind{K::Scalar}, nullptr, env, nullptr);
        bind_iter((*field(target, "elts"))[1], args[0], P.kind(F, args[0]), env);
        return;
      }
      if (fn == "zip" && is(target, "Tuple") && field(target, "elts")->size() == args.size()) {
        for (size_t i = 0; i < args.size(); ++i) bind_iter((*field(target, "elts"))[i], args[i], P.kind(F, args[i]), env);
        return;
      }
    }
    assign(target, element(it), nullptr, env, nullptr);
  }

  static Kind binop(const Kind& l, const Kind& r) {
    if (l.tensor() || r.tensor()) {
      Kind k{K::Tensor};
      k.dyn = (l.tensor() && l.dyn) || (r.tensor() && r.dyn);
      k.mask = (l.tensor() && l.mask) || (r.tensor() && r.mask);
      return k;
    }
    if (l.k == K::RuntimeList || r.k == K::RuntimeList) return Kind{K::RuntimeList};
    if (l.k == K::Numpy || r.k == K::Numpy) return Kind{K::Numpy};
    if (l.k == K::Shape && (r.k == K::Shape || r.k == K::List)) return Kind{K::Shape};
    if (l.k == K::Scalar && r.k == K::Scalar) return Kind{K::Scalar};
    if (l.k == K::Str || r.k == K::Str) return Kind{K::Str};
    if (l.k == K::List && r.k == K::List) return Kind{K::List};
    return Kind{};
  }

  Kind set(const Node& e, Kind k) {
    F.kinds[&e] = k;
    return k;
  }

  Kind expr(const Node& e, Env& env) {
    const auto& t = ntype(e);
    if (t.empty()) return Kind{};
    if (t == "Name") {
      std::string id = name_of(e);
      auto it = env.find(id);
      if (it != env.end()) return set(e, it->second);
      if (F.file->aliases.count(id)) {
        std::string q = F.file->aliases.at(id);
        if (q == "mindspore.Tensor" || q == "mindspore.Parameter") return set(e, Kind{K::Callable});
        return set(e, Kind{K::Module});
      }
      return set(e, Kind{});
    }
    if (t == "Constant") {
      std::string vk = str_field(e, "vk");
      if (vk == "None") return set(e, Kind{K::None});
      if (vk == "str" || vk == "bytes") return set(e, Kind{K::Str});
      return set(e, Kind{K::Scalar});
    }
    if (t == "Attribute") {
      const Node& v = *field(e, "value");
      std::string attr = str_field(e, "attr");
      if (is_self(v) && F.cls) {
        expr(v, env);
        if (const AttrInfo* ai = P.find_attr(F.cls, attr)) return set(e, ai->kind);
        if (P.find_method(F.cls, attr)) return set(e, Kind{K::Callable});
        if (attr == "training" || attr == "phase") return set(e, Kind{K::Scalar});
        return set(e, Kind{});
      }
      Kind b = expr(v, env);
      if (b.tensor()) {
        if (attr == "shape") return set(e, Kind{K::Shape});
        if (attr == "ndim" || attr == "size" || attr == "itemsize" || attr == "nbytes") return set(e, Kind{K::Scalar});
        if (attr == "dtype") return set(e, Kind{});
        if (attr == "T" || attr == "mT" || attr == "real" || attr == "imag") return set(e, b);
        Kind m{K::Callable};
        m.ctor = "tensor." + attr;
        return set(e, m);
      }
      if (b.k == K::Module) {
        std::string q = P.qualname(e, *F.file);
        if (q == "mindspore.Tensor" || q == "mindspore.Parameter") return set(e, Kind{K::Callable});
        return set(e, Kind{K::Module});
      }
      if (b.k == K::Numpy) return set(e, Kind{K::Numpy});
      if (b.k == K::RuntimeList) return set(e, Kind{K::RuntimeList});
      return set(e, Kind{});
    }
    if (t == "Subscript") {
      Kind b = expr(*field(e, "value"), env);
      const Node& sl = *field(e, "slice");
      Kind s = expr(sl, env);
      if (b.tensor()) {
        Kind r{K::Tensor};
        r.dyn = b.dyn || (s.tensor() && s.mask);
        return set(e, r);
      }
      if (b.k == K::Shape) return set(e, is(sl, "Slice") ? Kind{K::Shape} : Kind{K::Scalar});
      if (b.k == K::RuntimeList) return set(e, Kind{K::RuntimeList});
      if (b.k == K::Numpy) return set(e, Kind{K::Numpy});
      if (b.k == K::CellList || b.k == K::Cell) return set(e, Kind{K::Cell});
      return set(e, Kind{});
    }
    if (t == "BinOp") {
      Kind l = expr(*field(e, "left"), env), r = expr(*field(e, "right"), env);
      return set(e, binop(l, r));
    }
    if (t == "UnaryOp") {
      Kind k = expr(*field(e, "operand"), env);
      if (str_field(e, "op") == "Not" && !k.tensor() && k.k != K::RuntimeList) return set(e, Kind{K::Scalar});
      if (str_field(e, "op") == "Not" && k.tensor()) k.mask = true;
      return set(e, k);
    }
    if (t == "Compare") {
      std::vector<Kind> ks{expr(*field(e, "left"), env)};
      for (const auto& c : *field(e, "comparators")) ks.push_back(expr(c, env));
      bool all_is = true;
      for (const auto& op : *field(e, "ops"))
        if (op != "Is" && op != "IsNot") all_is = false;
      if (all_is) return set(e, Kind{K::Scalar});
      for (const auto& k : ks)
        if (k.tensor()) {
          Kind r{K::Tensor};
          r.mask = true;
          r.dyn = k.dyn;
          return set(e, r);
        }
      for (const auto& k : ks)
        if (k.k == K::RuntimeList) return set(e, Kind{K::RuntimeList});
      return set(e, Kind{K::Scalar});
    }
    if (t == "BoolOp") {
      Kind r{K::Scalar};
      for (const auto& v : *field(e, "values")) {
        Kind k = expr(v, env);
        if (k.tensor()) r = k;
        else if (k.k == K::RuntimeList && !r.tensor()) r = k;
      }
      return set(e, r);
    }
    if (t == "IfExp") {
      expr(*field(e, "test"), env);
      Kind a = expr(*field(e, "body"), env), b = expr(*field(e, "orelse"), env);
      return set(e, join(a, b));
    }
    if (t == "Tuple" || t == "List" || t == "Set") {
      bool cells = true, any = false;
      for (const auto& x : *field(e, "elts")) {
        Kind k = expr(x, env);
        any = true;
        if (k.k != K::Cell) cells = false;
      }
      if (any && cells) return set(e, Kind{K::CellList});
      return set(e, Kind{K::List});
    }
    if (t == "Dict") {
      for (const char* f : {"keys", "values"})
        for (const auto& x : *field(e, f))
          if (!x.is_null()) expr(x, env);
      return set(e, Kind{K::Dict});
    }
    if (t == "ListComp" || t == "SetComp" || t == "GeneratorExp" || t == "DictComp") {
      Env inner = env;
      for (const auto& g : *field(e, "generators")) {
        Kind it = expr(*field(g, "iter"), inner);
        bind_iter(*field(g, "target"), *field(g, "iter"), it, inner);
        for (const auto& c : *field(g, "ifs")) expr(c, inner);
      }
      if (t == "DictComp") {
        expr(*field(e, "key"), inner);
        expr(*field(e, "value"), inner);
        return set(e, Kind{K::Dict});
      }
      Kind el = expr(*field(e, "elt"), inner);
      return set(e, el.k == K::Cell ? Kind{K::CellList} : Kind{K::List});
    }
    if (t == "Lambda") {
      Env inner = env;
      if (const Node* a = field(e, "args"))
        for (const char* key : {"posonlyargs", "args", "kwonlyargs"})
          if (const Node* l = field(*a, key))
            for (const auto& x : *l) inner[str_field(x, "arg")] = Kind{};
      expr(*field(e, "body"), inner);
      return set(e, Kind{K::Callable});
    }
    if (t == "JoinedStr") {
      for (const auto& v : *field(e, "values")) expr(v, env);
      return set(e, Kind{K::Str});
    }
    if (t == "FormattedValue") return set(e, expr(*field(e, "value"), env));
    if (t == "Starred") return set(e, expr(*field(e, "value"), env));
    if (t == "NamedExpr") {
      Kind k = expr(*field(e, "value"), env);
      assign(*field(e, "target"), k, field(e, "value"), env, nullptr);
      return set(e, k);
    }
    if (t == "Call") return set(e, call(e, env));
    // Slice, Await, Yield...: visit children
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it->is_object() && !ntype(*it).empty()) expr(*it, env);
    return set(e, Kind{});
  }

  static Kind primitive_result(const std::string& ctor, bool any_dyn) {
    if (ctor == "Shape" || ctor == "TensorShape") return Kind{K::Shape};
    if (ctor == "Rank") return Kind{K::Scalar};
    Kind r{K::Tensor};
    r.dyn = kDynShapeOps.count(ctor) > 0 || any_dyn;
    return r;
  }

  Kind call(const Node& e, Env& env) {
    const Node& func = *field(e, "func");
    Kind fk = expr(func, env);
    std::vector<Kind> ak;
    std::vector<const Node*> argn;
    for (const auto& a : *field(e, "args")) {
      ak.push_back(expr(a, env));
      argn.push_back(&a);
    }
    for (const auto& kw : *field(e, "keywords")) ak.push_back(expr(*field(kw, "value"), env));
    bool any_tensor = false, any_dyn = false, any_rt = false;
    for (const auto& k : ak) {
      if (k.tensor()) any_tensor = true;
      if (k.tensor() && k.dyn) any_dyn = true;
      if (k.k == K::RuntimeList) any_rt = true;
    }
    Kind tensor_result{K::Tensor};
    tensor_result.dyn = any_dyn;

    // Propagate argument kinds into project functions we call.
    if (FunctionInfo* callee = P.resolve_call(F, e)) {
      if (std::find(F.callees.begin(), F.callees.end(), callee) == F.callees.end()) F.callees.push_back(callee);
      const Node* cargs = field(*callee->def, "args");
      if (cargs && field(*cargs, "args")) {
        std::vector<std::string> names;
        for (const auto& a : *field(*cargs, "args")) names.push_back(str_field(a, "arg"));
        size_t off = (!names.empty() && (names[0] == "self" || names[0] == "cls") && is(func, "Attribute")) ? 1 : 0;
        for (size_t i = 0; i < argn.size() && i + off < names.size(); ++i) {
          if (is(*argn[i], "Starred")) break;
          Kind& pk = callee->param_kinds[names[i + off]];
          pk = join(pk, ak[i]);
        }
        size_t kwi = argn.size();
        for (const auto& kw : *field(e, "keywords")) {
          std::string an = str_field(kw, "arg");
          if (!an.empty()) {
            Kind& pk = callee->param_kinds[an];
            pk = join(pk, ak[kwi]);
          }
          ++kwi;
        }
      }
      return any_tensor ? tensor_result : Kind{};
    }

    std::string q = P.qualname(func, *F.file);
    if (is(func, "Name")) {
      std::string n = name_of(func);
      if (!env.count(n) && q.empty()) {
        if (n == "len") return ak.size() == 1 && ak[0].k == K::RuntimeList ? Kind{K::RuntimeList} : Kind{K::Scalar};
        if (n == "int" || n == "float" || n == "bool" || n == "round" || n == "abs") {
          if (any_tensor) return Kind{K::Tensor};
          if (any_rt) return Kind{K::RuntimeList};
          return Kind{K::Scalar};
        }
        if (n == "max" || n == "min" || n == "sum") {
          if (any_tensor) return tensor_result;
          if (any_rt) return Kind{K::RuntimeList};
          bool all_scalar = !ak.empty();
          for (const auto& k : ak)
            if (k.k != K::Scalar && k.k != K::Shape) all_scalar = false;
          return all_scalar ? Kind{K::Scalar} : Kind{};
        }
        if (n == "isinstance" || n == "hasattr" || n == "callable" || n == "issubclass") return Kind{K::Scalar};
        if (n == "str" || n == "repr" || n == "format") return Kind{K::Str};
        if (n == "list" || n == "tuple") {
          if (!ak.empty() && (ak[0].tensor() || ak[0].k == K::RuntimeList)) return Kind{K::RuntimeList};
          if (!ak.empty() && ak[0].k == K::Shape) return Kind{K::Shape};
          if (!ak.empty() && ak[0].k == K::CellList) return Kind{K::CellList};
          return Kind{K::List};
        }
        if (n == "dict") return Kind{K::Dict};
        if (n == "print" || n == "setattr" || n == "delattr") return Kind{K::None};
        if (n == "getattr" || n == "super" || n == "type" || n == "range" || n == "zip" || n == "enumerate" || n == "map" ||
            n == "filter" || n == "reversed" || n == "sorted" || n == "iter" || n == "next")
          return Kind{};
        auto cr = P.class_by_name_.equal_range(n);
        for (auto it = cr.first; it != cr.second; ++it)
          if (it->second->is_cell) {
            Kind k{K::Cell};
            k.ctor = n;
            return k;
          }
      }
    }
    if (!q.empty()) {
      std::string last = last_part(q);
      if (q == "mindspore.Tensor" || q == "mindspore.Parameter" || q == "mindspore.tensor" || last == "initializer" ||
          q == "mindspore.from_numpy")
        return Kind{K::Tensor};
      // numpy on run-time values gives run-time values; on constants, compile-time constants.
      if (under(q, "numpy") || under(q, "cv2") || under(q, "PIL") || under(q, "scipy"))
        return (any_tensor || any_rt) ? Kind{K::RuntimeList} : Kind{K::Numpy};
      if (under(q, "math")) return any_tensor ? tensor_result : Kind{K::Scalar};
      if (under(q, "mindspore.nn") && !under(q, "mindspore.nn.functional") && !last.empty() && std::isupper(static_cast<unsigned char>(last[0]))) {
        Kind k{(last == "CellList" || last == "SequentialCell") ? K::CellList : K::Cell};
        k.ctor = last;
        return k;
      }
      if (is_graph_op_module(q) || under(q, "mindspore")) {
        if (!last.empty() && std::isupper(static_cast<unsigned char>(last[0]))) {
          Kind k{K::Primitive};
          k.ctor = last;
          return k;
        }
        if (last == "shape") return Kind{K::Shape};
        if (last == "rank") return Kind{K::Scalar};
        if (kDynShapeOps.count(last)) {
          Kind r{K::Tensor};
          r.dyn = true;
          return r;
        }
        if (last == "dtype" || last == "typeof") return Kind{};
        Kind r = tensor_result;
        if (last.rfind("logical_", 0) == 0 || last == "isnan" || last == "isinf" || last == "isfinite" || last == "equal" ||
            last == "greater" || last == "less" || last == "ne" || last == "gt" || last == "lt" || last == "ge" || last == "le")
          r.mask = true;
        return r;
      }
    }
    if (fk.k == K::Primitive) return primitive_result(fk.ctor, any_dyn);
    if (fk.k == K::Cell || fk.k == K::CellList) return tensor_result;
    if (fk.k == K::Callable && fk.ctor.rfind("tensor.", 0) == 0) {
      std::string m = fk.ctor.substr(7);
      Kind recv = P.kind(F, *field(func, "value"));
      if (m == "asnumpy" || m == "numpy") return Kind{K::RuntimeList};
      if (m == "tolist") return Kind{K::RuntimeList};
      if (m == "dim" || m == "ndimension" || m == "numel" || m == "nelement") return Kind{K::Scalar};
      if (m == "item") return Kind{K::Tensor};
      Kind r{K::Tensor};
      r.dyn = recv.dyn || kDynShapeOps.count(m) > 0 || any_dyn;
      if (m == "all" || m == "any" || m == "bool" || m == "isnan" || m == "equal" || m == "logical_and" || m == "logical_or" ||
          m == "logical_not")
        r.mask = true;
      if (m == "view" || m == "reshape" || m == "flatten" || m == "permute" || m == "transpose" || m == "squeeze" ||
          m == "unsqueeze" || m == "expand_dims" || m == "astype" || m == "float" || m == "int" || m == "half" ||
          m == "contiguous" || m == "clone" || m == "copy")
        r.mask = recv.mask && (m != "astype" && m != "float" && m != "int" && m != "half");
      return r;
    }
    if (fk.k == K::Numpy) return Kind{K::Numpy};
    if (is(func, "Attribute")) {
      std::string m = str_field(func, "attr");
      Kind recv = P.kind(F, *field(func, "value"));
      if (recv.k == K::RuntimeList) return Kind{K::RuntimeList};
      if (recv.k == K::List && (m == "append" || m == "extend" || m == "insert")) return Kind{K::None};
      if (recv.k == K::Dict) return Kind{};
    }
    if (fk.k == K::Callable && is(func, "Attribute") && is_self(*field(func, "value"))) return any_tensor ? tensor_result : Kind{};
    return any_tensor ? tensor_result : Kind{};
  }
};

void Project::collect_attrs() {
  // Attributes are what non-construct methods (normally __init__) assign to self. Run inference on
  // those methods, recording self.X assignments; two rounds so attributes built from attributes
  // resolve.
  for (int round = 0; round < 2; ++round)
    for (auto& c : classes_)
      for (auto& [name, m] : c->methods) {
        if (name == "construct" || m->graph) continue;
        m->kinds.clear();
        Inferrer(*this, *m, /*record_attrs=*/true).run();
      }
  // Class-level assignments: kinds from their value (constants, lists, dicts).
  for (auto& c : classes_)
    for (auto& [name, ai] : c->attrs) {
      if (ai.kind.k != K::Unknown || !ai.value) continue;
      const auto& t = ntype(*ai.value);
      if (t == "Constant") ai.kind = Kind{str_field(*ai.value, "vk") == "str" ? K::Str : K::Scalar};
      else if (t == "List" || t == "Tuple") ai.kind = Kind{K::List};
      else if (t == "Dict") ai.kind = Kind{K::Dict};
    }
}

void Project::find_graph_functions() {
  std::deque<FunctionInfo*> q;
  std::set<FunctionInfo*> seen;
  auto push = [&](FunctionInfo* f) {
    if (f && !f->constexpr_ && seen.insert(f).second) {
      f->graph = true;
      graph_.push_back(f);
      q.push_back(f);
    }
  };
  for (auto& c : classes_)
    if (c->is_cell) {
      auto it = c->methods.find("construct");
      if (it != c->methods.end()) push(it->second);
    }
  for (auto& f : functions_)
    if (f->jit) push(f.get());
  while (!q.empty()) {
    FunctionInfo* f = q.front();
    q.pop_front();
    walk(*field(*f->def, "body"), [&](const Node& n) {
      if (is(n, "Call"))
        if (FunctionInfo* callee = resolve_call(*f, n)) push(callee);
    });
  }
  // Cell scope: all methods of cells and what they call.
  std::set<FunctionInfo*> scope;
  std::deque<FunctionInfo*> q2;
  for (auto& c : classes_)
    if (c->is_cell)
      for (auto& [n, m] : c->methods)
        if (scope.insert(m).second) q2.push_back(m);
  for (auto* g : graph_)
    if (scope.insert(g).second) q2.push_back(g);
  while (!q2.empty()) {
    FunctionInfo* f = q2.front();
    q2.pop_front();
    cell_scope_.push_back(f);
    walk(*field(*f->def, "body"), [&](const Node& n) {
      if (is(n, "Call"))
        if (FunctionInfo* callee = resolve_call(*f, n))
          if (scope.insert(callee).second) q2.push_back(callee);
    });
  }
}

void Project::infer_all() {
  // Twice: the second round sees the parameter kinds that call sites propagated in the first.
  for (int round = 0; round < 2; ++round)
    for (auto* f : graph_) {
      f->kinds.clear();
      Inferrer(*this, *f, /*record_attrs=*/false).run();
    }
}

}  // namespace ms::lint
