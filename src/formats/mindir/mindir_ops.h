// The mapping tables between the IR's operators (ONNX semantics) and MindSpore primitives, one per
// direction (mindir_op_table.cc). Most entries are one line: IR op, primitive class name and the
// attribute renames; the conversion is then generic (inputs stay inputs, attributes become
// primitive attributes). Irregular conversions (Conv -> Conv2D attributes, Concat over MakeTuple,
// Reshape with a Constant shape, ...) are small functions named in the entry.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "formats/mindir/mindir_value.h"

namespace ms::mindir {

// --- writing ----------------------------------------------------------------------------------
// What an export function may do while translating one IR node (implemented by the writer).
class WriteCtx {
 public:
  virtual ~WriteCtx() = default;
  virtual const Node& node() const = 0;
  // Reference to IR value `ir_name` (a graph input, parameter, constant or earlier node output).
  virtual std::string ref(const std::string& ir_name) = 0;
  // Node input i as a reference; an omitted optional input becomes a Constant None.
  virtual std::string in(size_t i) = 0;
  virtual size_t num_inputs() const = 0;
  // The constant value of IR value `ir_name` (an initializer), or nullptr.
  virtual const Tensor* constant(const std::string& ir_name) const = 0;
  virtual const TypeInfo* type(const std::string& ir_name) const = 0;
  // Whether IR value `ir_name` is a graph input (an old-style weight input has an initializer too,
  // and keeps its name as a parameter).
  virtual bool is_graph_input(const std::string& ir_name) const { (void)ir_name; return false; }
  // Emits a Constant node (placed before its first user) and returns its name.
  virtual std::string constant_node(const MsValue& v) = 0;
  // Emits a primitive call; returns the reference of its output.
  virtual std::string call(const std::string& prim, const std::map<std::string, MsValue>& attrs,
                           const std::vector<std::string>& inputs, const Abstract& out,
                           const std::string& debug_name = "") = 0;
  // TupleGetItem(tuple, index).
  virtual std::string get_item(const std::string& tuple, int64_t index, const Abstract& out) = 0;
  // Makes IR output `ir_output` of the node refer to `ref`.
  virtual void bind(const std::string& ir_output, const std::string& ref) = 0;
  // Abstract of IR value `ir_name` (dtype/shape when known).
  virtual Abstract abstract(const std::string& ir_name) const = 0;
  // The attribute of the node or the schema default; nullptr when neither exists.
  virtual const Attribute* attr(const std::string& name) const = 0;
  // The generic conversion: the node's inputs and attributes, unchanged, on primitive `prim`.
  virtual void write_generic(const std::string& prim) = 0;
  // Writes `sub` as a function graph (ModelProto.functions) without inputs; returns its name,
  // which nodes use as a value.
  virtual std::string write_function(const Graph& sub, const std::string& hint) = 0;
  // The same in steps, for graphs with inputs: a fresh function name; open it (its inputs are
  // `<name>:<input name>`, returned); write a subgraph's nodes into it with some IR names bound to
  // references; close it with its outputs. Functions may be opened inside others.
  virtual std::string function_name(const std::string& hint) = 0;
  virtual std::vector<std::string> open_function(const std::string& fname, const std::vector<std::string>& input_names,
                                                 const std::vector<Abstract>& input_types) = 0;
  virtual void write_nodes(const Graph& sub, const std::map<std::string, std::string>& bound,
                           const std::map<std::string, TypeInfo>& bound_types) = 0;
  virtual void close_function(const std::vector<std::string>& outs, const std::vector<Abstract>& abs) = 0;
  // A call of the function value produced by node `callee` (op_type `REF::<callee>`).
  virtual std::string call_value(const std::string& callee, const std::vector<std::string>& inputs, const Abstract& out) = 0;
};

using ExportFn = std::function<void(WriteCtx&)>;

struct ExportRule {
  std::string ir_op;  // op type in the default (ONNX) domain
  std::string prim;   // MindSpore primitive class name
  std::vector<std::pair<std::string, std::string>> renames;  // IR attribute -> primitive attribute
  ExportFn fn;        // irregular conversion; empty = generic
};

const ExportRule* find_export_rule(const std::string& ir_op);
std::vector<std::string> exportable_ops();

// --- reading ----------------------------------------------------------------------------------
// A MindIR value as the reader tracks it.
struct RVal {
  enum class Kind { Tensor, Tuple, Const, None, Monad, Func, Switch } kind = Kind::None;
  std::string name;          // Tensor: IR value name; Func: graph name
  std::vector<RVal> elems;   // Tuple; Switch: cond, true branch, false branch
  MsValue c;                 // Const
  Abstract abs;              // declared type, when known
  bool seq_tensor = false;   // a tuple of scalars held as a 1-D tensor (Shape's output)

  static RVal tensor(std::string n, Abstract a = {}) {
    RVal r;
    r.kind = Kind::Tensor;
    r.name = std::move(n);
    r.abs = std::move(a);
    return r;
  }
  static RVal constant(MsValue v) {
    RVal r;
    r.kind = Kind::Const;
    r.c = std::move(v);
    return r;
  }
  static RVal tuple(std::vector<RVal> e) {
    RVal r;
    r.kind = Kind::Tuple;
    r.elems = std::move(e);
    return r;
  }
};

// What an import function may do (implemented by the reader).
class ReadCtx {
 public:
  virtual ~ReadCtx() = default;
  virtual const std::string& prim() const = 0;  // primitive class name
  virtual const std::string& what() const = 0;  // "file: node name (Prim)" for messages
  virtual const std::vector<RVal>& inputs() const = 0;
  virtual const std::map<std::string, MsValue>& attrs() const = 0;
  virtual const Abstract& out_abstract() const = 0;
  virtual const MsValue* attr(const std::string& name) const = 0;
  // Input i (or attribute `name` when the input is absent, for pre-2.3 files) as a constant.
  virtual MsValue const_arg(size_t i, const std::string& attr_name) const = 0;
  virtual bool has_const_arg(size_t i, const std::string& attr_name) const = 0;
  // Input i as an IR tensor name ("" for None); constants become initializers.
  virtual std::string tensor(size_t i) = 0;
  virtual std::string tensor_of(const RVal& v) = 0;
  virtual std::string add_const(const Tensor& t, const std::string& hint) = 0;
  // Adds an IR node; returns its output names (n_outputs of them).
  virtual std::vector<std::string> add(const std::string& op, std::vector<std::string> inputs,
                                       std::map<std::string, Attribute> attrs, int n_outputs = 1) = 0;
  std::string add1(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs = {}) {
    return add(op, std::move(inputs), std::move(attrs), 1)[0];
  }
  // Rank of input i when known (from abstracts or the IR), else -1.
  virtual int rank(size_t i) const = 0;
  virtual DType dtype(size_t i) const = 0;
  virtual std::vector<int64_t> dims(size_t i) const = 0;  // empty when unknown
  // The IR node producing `ir_name`, when it was made by this reader and is still modifiable.
  virtual Node* producer(const std::string& ir_name) = 0;
  // Value `ir_name` (made by this node) may be dropped when nothing uses it.
  virtual void optional(const std::string& ir_name) = 0;
  // Value `ir_name`, made by an earlier node that this node absorbs, takes this node's name.
  virtual std::string reclaim(const std::string& ir_name) = 0;
  virtual int use_count(size_t i) const = 0;  // MindIR uses of input i's value
  // The generic conversion to IR op `ir_op` (inputs stay inputs, attributes by the op's schema).
  virtual RVal generic(const std::string& ir_op) = 0;
};

using ImportFn = std::function<RVal(ReadCtx&)>;

struct ImportRule {
  std::string prim;
  std::string ir_op;
  std::vector<std::pair<std::string, std::string>> renames;  // primitive attribute -> IR attribute
  ImportFn fn;
};

const ImportRule* find_import_rule(const std::string& prim);
// MindSpore Lite's *Fusion primitives and Activation (mindir_lite_import.cc).
const std::vector<ImportRule>& lite_import_rules();

}  // namespace ms::mindir
