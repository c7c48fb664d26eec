// The model of a set of MindSpore network sources that the lint rules read: files and their imports,
// classes (which ones are nn.Cell subclasses, directly or through other classes in the given files),
// functions, the functions compiled in GRAPH_MODE (each Cell's `construct`, @jit functions, and what
// they call, transitively), attributes set in __init__, and a light type inference that tells, for
// each expression of a graph function, whether it is a Tensor, a shape tuple, a Python scalar, a
// Python container, a numpy value...
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "lint/python_ast.h"

namespace ms::lint {

using Node = nlohmann::json;

// --- AST helpers ------------------------------------------------------------------------------
inline const std::string& ntype(const Node& n) {
  static const std::string empty;
  if (!n.is_object()) return empty;
  auto it = n.find("_t");
  return it == n.end() ? empty : it->template get_ref<const std::string&>();
}
inline bool is(const Node& n, const char* t) { return n.is_object() && ntype(n) == t; }
inline int nline(const Node& n) { return n.is_object() ? n.value("_l", 0) : 0; }
inline int ncol(const Node& n) { return n.is_object() ? n.value("_c", 0) : 0; }
// The field `f` of node `n`, or nullptr when absent or null.
inline const Node* field(const Node& n, const char* f) {
  if (!n.is_object()) return nullptr;
  auto it = n.find(f);
  if (it == n.end() || it->is_null()) return nullptr;
  return &*it;
}
inline std::string str_field(const Node& n, const char* f) {
  const Node* v = field(n, f);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}
// Name id of a Name node, "" otherwise.
inline std::string name_of(const Node& n) { return is(n, "Name") ? str_field(n, "id") : std::string(); }
bool is_self(const Node& n);
// The attribute name when `n` is `self.<attr>`, else "".
std::string self_attr(const Node& n);
// "a.b.c" for an Attribute chain rooted at a Name, else "".
std::string dotted(const Node& n);
// Integer value of an int constant, including `-1` written as UnaryOp(USub, 1).
bool int_const(const Node& n, long long& v);

// Calls fn(node) for `n` and every node below it (pre-order). Nested function definitions, lambdas
// and classes are entered too unless `enter_defs` is false.
template <class Fn>
void walk(const Node& n, Fn&& fn, bool enter_defs = true) {
  if (n.is_array()) {
    for (const auto& c : n) walk(c, fn, enter_defs);
    return;
  }
  if (!n.is_object()) return;
  fn(n);
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->is_object() && !it->is_array()) continue;
    if (!enter_defs && it->is_object()) {
      const auto& t = ntype(*it);
      if (t == "FunctionDef" || t == "AsyncFunctionDef" || t == "Lambda" || t == "ClassDef") continue;
    }
    if (!enter_defs && it->is_array()) {
      for (const auto& c : *it) {
        const auto& t = ntype(c);
        if (t == "FunctionDef" || t == "AsyncFunctionDef" || t == "ClassDef") continue;
        walk(c, fn, enter_defs);
      }
      continue;
    }
    walk(*it, fn, enter_defs);
  }
}

// --- value kinds --------------------------------------------------------------------------------
enum class K {
  Unknown,
  Tensor,       // a MindSpore tensor (or a tensor-valued scalar such as x.item(), int(x.sum()))
  Shape,        // a shape tuple (x.shape, ops.shape(x)): static at compile time
  Scalar,       // a Python number/bool known at compile time
  Str,
  None,
  List,         // a Python list/tuple literal or comprehension result
  Dict,
  RuntimeList,  // a Python container holding run-time tensor values (x.tolist(), x.asnumpy())
  Numpy,        // a numpy array/value
  Cell,         // an nn.Cell instance
  CellList,     // nn.CellList / SequentialCell / list of cells
  Primitive,    // an ops.Xxx() primitive instance
  Module,
  Callable,
};

struct Kind {
  K k = K::Unknown;
  bool dyn = false;   // Tensor whose shape depends on data (masked_select, nonzero, x[mask]...)
  bool mask = false;  // boolean Tensor (a comparison)
  std::string ctor;   // Cell/Primitive: the class name that built it (Dropout, Reshape, Shape...)
  bool tensor() const { return k == K::Tensor; }
};
Kind join(const Kind& a, const Kind& b);

struct ClassInfo;
struct SourceFile;

struct FunctionInfo {
  const Node* def = nullptr;
  const SourceFile* file = nullptr;
  ClassInfo* cls = nullptr;  // defining class for methods
  std::string name;
  bool graph = false;       // compiled in GRAPH_MODE (construct, @jit, or reached from them)
  bool constexpr_ = false;  // @constexpr/@_primexpr: runs in Python at compile time
  bool jit = false;         // @jit / @ms_function
  std::map<std::string, Kind> param_kinds;       // propagated from call sites
  std::unordered_map<const Node*, Kind> kinds;   // expression kinds (graph functions)
  std::vector<FunctionInfo*> callees;            // project functions it calls
};

struct AttrInfo {
  Kind kind;
  const Node* value = nullptr;  // the assigned expression (first assignment)
  const Node* where = nullptr;  // the assignment statement
  bool class_level = false;     // a class-body assignment
};

struct ClassInfo {
  std::string name;
  const Node* def = nullptr;
  const SourceFile* file = nullptr;
  std::vector<ClassInfo*> bases;          // bases found in the given files
  std::vector<std::string> base_quals;    // every base, qualified through the file's imports
  bool is_cell = false;
  std::map<std::string, FunctionInfo*> methods;
  std::map<std::string, AttrInfo> attrs;  // self.X set outside graph methods, and class-level names
};

struct SourceFile {
  std::string path;
  Node module;
  std::map<std::string, std::string> aliases;  // local name -> qualified module or object
};

class Project {
 public:
  explicit Project(std::vector<ParsedFile> files);

  const std::vector<std::unique_ptr<SourceFile>>& files() const { return files_; }
  const std::vector<std::unique_ptr<ClassInfo>>& classes() const { return classes_; }
  const std::vector<std::unique_ptr<FunctionInfo>>& functions() const { return functions_; }
  // Graph functions in discovery order (roots first).
  const std::vector<FunctionInfo*>& graph_functions() const { return graph_; }
  // Every method of a Cell class and every project function they call (transitively), graph or not.
  const std::vector<FunctionInfo*>& cell_scope() const { return cell_scope_; }

  // "numpy.random.randn" for `np.random.randn` when the file has `import numpy as np`; "" when the
  // root name is not an imported module or object.
  std::string qualname(const Node& expr, const SourceFile& f) const;
  FunctionInfo* find_method(const ClassInfo* c, const std::string& name) const;
  const AttrInfo* find_attr(const ClassInfo* c, const std::string& name) const;
  // Kind of an expression of a graph function (Unknown when not inferred).
  Kind kind(const FunctionInfo& fn, const Node& expr) const;
  // The project function a call resolves to, or nullptr.
  FunctionInfo* resolve_call(const FunctionInfo& caller, const Node& call) const;

 private:
  void index_file(SourceFile& f);
  void resolve_classes();
  void collect_attrs();
  void find_graph_functions();
  void infer_all();

  std::vector<std::unique_ptr<SourceFile>> files_;
  std::vector<std::unique_ptr<ClassInfo>> classes_;
  std::vector<std::unique_ptr<FunctionInfo>> functions_;
  std::multimap<std::string, ClassInfo*> class_by_name_;
  std::multimap<std::string, FunctionInfo*> func_by_name_;  // module-level functions
  std::vector<FunctionInfo*> graph_;
  std::vector<FunctionInfo*> cell_scope_;
  friend class Inferrer;
};

// Is `qual` (as returned by qualname) under the module `mod` ("numpy" matches "numpy.random.rand")?
bool under(const std::string& qual, const char* mod);
// The last component of a dotted name.
std::string last_part(const std::string& dotted_name);

}  // namespace ms::lint
