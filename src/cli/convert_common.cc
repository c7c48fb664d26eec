#include "cli/convert_common.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/cli_util.h"
#include "core/tensor_origin.h"
#include "ops/infer_graph.h"
#include "passes/basic_passes.h"
#include "passes/pipelines.h"

namespace ms::cli {

std::vector<std::pair<std::string, std::vector<int64_t>>> parse_input_shapes(const std::string& spec) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> r;
  for (const auto& item : split_list(spec, ';')) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0)
      fail("--inputShape entry '{}' must look like name:1,3,224,224 (name:[] for a scalar)", item);
    std::string name = item.substr(0, colon), ds;
    for (char c : item.substr(colon + 1))
      if (c != ' ') ds += c;
    if (!ds.empty() && ds.front() == '[') {
      if (ds.back() != ']') fail("--inputShape entry '{}': '[' without ']'", item);
      ds = ds.substr(1, ds.size() - 2);
    }
    std::vector<int64_t> dims;
    for (const auto& d : split_list(ds, ',')) {
      try {
        size_t used = 0;
        long long v = std::stoll(d, &used);
        if (used != d.size() || v < 0) throw std::invalid_argument(d);
        dims.push_back(v);
      } catch (const std::exception&) {
        fail("--inputShape: '{}' is not a dimension in '{}'", d, item);
      }
    }
    for (const auto& [n, d] : r)
      if (n == name) fail("--inputShape gives input '{}' twice", name);
    r.emplace_back(std::move(name), std::move(dims));
  }
  return r;
}

std::map<std::string, std::vector<int64_t>> input_shape_map(const std::string& spec) {
  std::map<std::string, std::vector<int64_t>> r;
  for (auto& [name, dims] : parse_input_shapes(spec)) r[name] = std::move(dims);
  return r;
}

void apply_input_shapes(Model& m, const std::string& spec) {
  for (const auto& [name, given] : parse_input_shapes(spec)) {
    ValueInfo* in = nullptr;
    for (auto& v : m.graph.inputs)
      if (v.name == name) in = &v;
    if (!in) {
      std::string names;
      for (const auto& v : m.graph.inputs) names += (names.empty() ? "" : ", ") + v.name;
      fail("--inputShape names '{}', which is not an input of the model (inputs: {})", name, names);
    }
    std::vector<Dim> dims;
    for (int64_t v : given) dims.push_back(Dim::fixed(v));
    auto shape_str = [&] {
      std::string s;
      for (int64_t v : given) s += (s.empty() ? "" : ",") + std::to_string(v);
      return "[" + s + "]";
    };
    if (in->type.shape && in->type.shape->size() != dims.size())
      fail("--inputShape gives input '{}' rank {} ({}) but the model declares {}", name, dims.size(), shape_str(), in->type.str());
    if (in->type.shape)
      for (size_t k = 0; k < dims.size(); ++k) {
        const Dim& old = (*in->type.shape)[k];
        if (old.is_static() && old.value != dims[k].value)
          fail("--inputShape gives input '{}' dimension {} = {} but the model fixes it to {}", name, k, dims[k].value, old.value);
      }
    in->type.shape = dims;
  }
}

void refresh_output_types(Model& m) {
  GraphInference gi = infer_graph(m);
  for (auto& o : m.graph.outputs) {
    const TypeInfo* t = gi.type_of(m.graph, o.name);
    // Keep the declared type where inference knows less (no shape) than the file said.
    if (t && t->kind == TypeInfo::Kind::Tensor && (t->shape || !o.type.shape)) o.type = *t;
  }
}

namespace {

bool valid_io_name(const std::string& s) {
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

// Every value name a graph and its subgraphs define or read.
void collect_names(const Graph& g, std::set<std::string>& names) {
  for_each_graph(g, [&](const Graph& sg) {
    for (const auto& v : sg.inputs) names.insert(v.name);
    for (const auto& v : sg.outputs) names.insert(v.name);
    for (const auto& v : sg.value_info) names.insert(v.name);
    for (const auto& [k, t] : sg.initializers) names.insert(k);
    for (const auto& n : sg.nodes) {
      for (const auto& i : n.inputs) names.insert(i);
      for (const auto& o : n.outputs) names.insert(o);
    }
  });
}

// Renames the uses of outer values inside a subgraph; a name the subgraph defines itself shadows
// the outer one and is left alone (with everything below it).
void rename_in_subgraph(Graph& g, std::map<std::string, std::string> map) {
  for (const auto& v : g.inputs) map.erase(v.name);
  for (const auto& [k, t] : g.initializers) map.erase(k);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) map.erase(o);
  if (map.empty()) return;
  auto sub = [&](std::string& s) {
    auto it = map.find(s);
    if (it != map.end()) s = it->second;
  };
  for (auto& n : g.nodes) {
    for (auto& i : n.inputs) sub(i);
    for (auto& [k, a] : n.attrs) {
      if (a.g) rename_in_subgraph(*a.g, map);
      for (auto& sg : a.graphs)
        if (sg) rename_in_subgraph(*sg, map);
    }
  }
  for (auto& v : g.outputs) sub(v.name);
}

}  // namespace

void rename_io(Model& m, const std::string& spec) {
  Graph& g = m.graph;
  std::map<std::string, std::string> map;  // old -> new
  std::set<std::string> targets;
  auto is_io = [&](const std::string& name) {
    for (const auto& v : g.inputs)
      if (v.name == name) return true;
    for (const auto& v : g.outputs)
      if (v.name == name) return true;
    return false;
  };
  for (const auto& item : split_list(spec, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      fail("--renameIO entry '{}' must look like old=new (for example \"input:0=input\")", item);
    std::string from = item.substr(0, eq), to = item.substr(eq + 1);
    if (!is_io(from)) {
      std::string ins, outs;
      for (const auto& v : g.inputs)
        if (!g.initializers.count(v.name)) ins += (ins.empty() ? "" : ", ") + v.name;
      for (const auto& v : g.outputs) outs += (outs.empty() ? "" : ", ") + v.name;
      fail("--renameIO names '{}', which is not an input or output of the model (inputs: {}; outputs: {})", from, ins, outs);
    }
    if (!valid_io_name(to))
      fail("--renameIO: new name '{}' for '{}' must match [A-Za-z_][A-Za-z0-9_]* (what deployment runtimes accept)", to, from);
    if (map.count(from)) fail("--renameIO renames '{}' twice", from);
    if (!targets.insert(to).second) fail("--renameIO gives two values the name '{}'", to);
    map[from] = to;
  }
  std::set<std::string> names;
  collect_names(g, names);
  for (const auto& [from, to] : map)
    if (from != to && names.count(to) && !map.count(to))
      fail("--renameIO: new name '{}' for '{}' is already a value of the model; choose another", to, from);
  // The tensor origin map: renamed values stand for what the old names stood for.
  TensorOriginMap origin = read_tensor_origin(m), renamed = origin;
  for (const auto& [from, to] : map) renamed.erase(from);
  for (const auto& [from, to] : map) {
    const std::string& root = tensor_origin_root(origin, from);
    if (root == to) renamed.erase(to);
    else renamed[to] = root;
  }
  write_tensor_origin(m, renamed);

  auto sub = [&](std::string& s) {
    auto it = map.find(s);
    if (it != map.end()) s = it->second;
  };
  for (auto& v : g.inputs) sub(v.name);
  for (auto& v : g.outputs) sub(v.name);
  for (auto& v : g.value_info) sub(v.name);
  std::map<std::string, Tensor> inits;
  for (auto& [k, t] : g.initializers) {
    std::string name = k;
    sub(name);
    inits.emplace(name, std::move(t));
  }
  g.initializers = std::move(inits);
  for (auto& n : g.nodes) {
    for (auto& i : n.inputs) sub(i);
    for (auto& o : n.outputs) sub(o);
    for (auto& [k, a] : n.attrs) {
      if (a.g) rename_in_subgraph(*a.g, map);
      for (auto& sg : a.graphs)
        if (sg) rename_in_subgraph(*sg, map);
    }
  }
}

Model load_with_input_shapes(const std::string& path, const std::string& input_shape) {
  Model m = load_model(path);
  if (!input_shape.empty()) {
    apply_input_shapes(m, input_shape);
    refresh_output_types(m);
  }
  return m;
}

namespace {

size_t parameter_bytes(const Model& m) {
  size_t s = 0;
  for (const auto& [k, t] : m.graph.initializers) s += t.nbytes();
  return s;
}

std::string human_bytes(size_t b) {
  if (b >= (size_t(1) << 20)) return fmt::format("{:.1f} MiB", b / 1048576.0);
  if (b >= 1024) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

void select_outputs(Model& m, const std::vector<std::string>& names) {
  std::set<std::string> produced;
  for (const auto& n : m.graph.nodes)
    for (const auto& o : n.outputs) produced.insert(o);
  for (const auto& v : m.graph.inputs) produced.insert(v.name);
  std::vector<ValueInfo> outs;
  for (const auto& name : names) {
    if (!produced.count(name)) fail("--output-name '{}' is not a value of the model", name);
    ValueInfo vi{name, {}};
    for (const auto& o : m.graph.outputs)
      if (o.name == name) vi = o;
    for (const auto& v : m.graph.value_info)
      if (v.name == name) vi = v;
    outs.push_back(vi);
  }
  m.graph.outputs = outs;
}

}  // namespace

void refuse_lite_output(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".ms")
    fail_unsupported("{}: MindSpore Lite .ms FlatBuffers output is not written yet; use .mindir (MindIR protobuf) or .onnx", path);
}

bool is_lite_save_type(const std::string& save_type) {
  std::string u = save_type;
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u == "MINDIR_LITE" || u == "MS";
}

ConvertedModel convert_model(const ConvertOptions& o) {
  if (o.optimize != "none" && o.optimize != "basic" && o.optimize != "general")
    fail("--optimize must be none, basic or general, not '{}'", o.optimize);
  if (o.out_fmt != ModelFormat::Onnx && o.out_fmt != ModelFormat::MindIR) fail("--saveType must be MINDIR or ONNX");
  ConvertedModel c;
  c.start = std::chrono::steady_clock::now();
  refuse_lite_output(o.output_file);
  std::string out = o.output_file;
  if (std::filesystem::path(out).extension().empty()) out += o.out_fmt == ModelFormat::Onnx ? ".onnx" : ".mindir";
  c.output_path = out;
  if (std::filesystem::exists(out) && std::filesystem::exists(o.model_file) && std::filesystem::equivalent(out, o.model_file))
    fail("--outputFile {} is the input model; choose another path", out);
  LoadOptions lo;
  lo.output_names = o.output_names;
  lo.input_layout = o.input_layout;
  lo.keep_layout = o.keep_layout;
  if (o.keep_layout && o.in_fmt != ModelFormat::TF && o.in_fmt != ModelFormat::TFLite)
    fail("--keepLayout applies to --fmk TF and TFLITE models only");
  if (o.keep_layout && o.input_layout != "NHWC") fail("--keepLayout keeps the inputs as in the file: it excludes --inputLayout {}", o.input_layout);
  if (o.input_layout != "NHWC" && o.in_fmt != ModelFormat::TF && o.in_fmt != ModelFormat::TFLite)
    fail("--inputLayout applies to --fmk TF and TFLITE models only");
  c.model = load_model(o.model_file, o.in_fmt, lo);
  Model& m = c.model;
  if (!o.input_shape.empty()) {
    apply_input_shapes(m, o.input_shape);
    refresh_output_types(m);  // the import's output types predate the fixed input dims
  }
  // TensorFlow's importer selects outputs itself (it imports only what they need).
  if (!o.output_names.empty() && o.in_fmt != ModelFormat::TF) {
    select_outputs(m, o.output_names);
    passes::remove_dead_nodes(m);
  }
  if (!o.rename_io.empty()) rename_io(m, o.rename_io);
  c.nodes_before = m.graph.nodes.size();
  if (o.optimize == "basic") {
    passes::run_basic_pipeline(m);
  } else if (o.optimize == "general") {  // the pipeline of `ms optimize --optimize <level>`
    passes::OptimizeOptions opt;
    opt.level = o.optimize_level;
    // A written file is read by other runtimes (ONNX Runtime, MindSpore): no com.mstools fused ops,
    // which only this project's runtime knows.
    opt.ctx.allow_ms_domain = false;
    c.optimized = passes::optimize_model(m, opt);
  }
  return c;
}

std::string write_converted(ConvertedModel& c, const ConvertOptions& o) {
  Model& m = c.model;
  const std::string& out = c.output_path;
  size_t nodes_optimized = m.graph.nodes.size();
  const size_t half_nodes =
      o.compute_precision != DType::Float32 ? passes::to_half_compute_form(m, o.compute_precision) : 0;
  size_t casts = o.fp16 ? passes::weights_to_fp16(m) : 0;
  for (const auto& [k, v] : o.metadata) m.metadata[k] = v;
  std::string written = write_model_file(m, out, o.out_fmt);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
  const size_t nodes_before = c.nodes_before;
  if (!o.quiet) {
    std::cout << "converted " << o.model_file << " -> " << written << "\n";
    std::cout << "  inputs:     ";
    for (size_t k = 0; k < m.graph.inputs.size(); ++k)
      std::cout << (k ? ", " : "") << m.graph.inputs[k].name << " " << m.graph.inputs[k].type.str();
    std::cout << "\n  outputs:    ";
    for (size_t k = 0; k < m.graph.outputs.size(); ++k)
      std::cout << (k ? ", " : "") << m.graph.outputs[k].name
                << (m.graph.outputs[k].type.kind == TypeInfo::Kind::Unknown ? "" : " " + m.graph.outputs[k].type.str());
    std::cout << "\n  nodes:      " << nodes_optimized;
    if (nodes_before != nodes_optimized) std::cout << " (" << nodes_before << " before --optimize " << o.optimize << ")";
    if (casts) std::cout << " + " << casts << " Cast nodes restoring float32 from the fp16 weights";
    if (o.compute_precision != DType::Float32)
      std::cout << fmt::format("\n  precision:  {} nodes compute in {}, the rest in float32 (inputs and outputs float32)",
                               half_nodes, dtype_name(o.compute_precision));
    size_t pb = parameter_bytes(m);
    std::cout << "\n  parameters: " << pb << " bytes (" << human_bytes(pb) << ")" << (o.fp16 ? ", float32 weights stored as float16" : "")
              << "\n  time:       " << fmt::format("{:.3f}", secs) << " s\n";
  }
  return written;
}

std::string run_conversion(const ConvertOptions& o) {
  ConvertedModel c = convert_model(o);
  return write_converted(c, o);
}

}  // namespace ms::cli
