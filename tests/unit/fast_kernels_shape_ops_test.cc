// Fast kernels of the small ops models compute on shapes and around their If nodes, against the
// reference kernels, bit for bit: Pad (seeded shapes and pads in every mode, negative pads, empty
// axes, several element sizes, parameters from inputs and from attributes), Shape/Size, the views
// (Reshape, Squeeze, Unsqueeze, Flatten, Identity), the comparisons, Not and ConstantOfShape; the
// reference's errors for bad parameters; and that a view never lets a caller write into an
// initializer, a Constant or a graph input.
#include <cstring>

#include "fast_kernels_util.h"

namespace ms::test {
namespace {

Tensor random_bytes(DType dt, const Shape& shape, uint32_t seed) {
  Tensor t(dt, shape);
  std::mt19937 rng(seed);
  auto* p = static_cast<unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(rng());
  if (dt == DType::Bool)
    for (size_t i = 0; i < t.nbytes(); ++i) p[i] &= 1;
  return t;
}

Tensor i64(std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

struct Spec {
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::map<std::string, Tensor> weights;
  std::vector<std::string> outputs = {"y"};
  int opset = 18;
};

std::shared_ptr<const Model> model_of(const Spec& s) {
  auto m = std::make_shared<Model>();
  m->opsets = {{"", s.opset}, {kMsDomain, kMsDomainVersion}};
  for (const auto& [name, t] : s.inputs) m->graph.inputs.push_back(tensor_info(name, t.dtype(), t.shape()));
  m->graph.initializers = s.weights;
  m->graph.nodes = s.nodes;
  for (const auto& o : s.outputs) m->graph.outputs.push_back({o, TypeInfo::tensor_unknown_shape(DType::Undefined)});
  return m;
}

std::vector<Value> feeds_of(const Spec& s) {
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  return feeds;
}

void expect_same(const Tensor& g, const Tensor& w, const std::string& what) {
  ASSERT_EQ(g.dtype(), w.dtype()) << what;
  ASSERT_EQ(g.shape(), w.shape()) << what;
  EXPECT_EQ(0, std::memcmp(g.raw(), w.raw(), w.nbytes())) << what << ": bytes differ";
}

// Runs fast (twice: the second run has the arena planned with the views the first one found) and
// reference; every output must agree bit for bit, and every node of `fast_ops` must run `kernel`.
void check(const Spec& s, const std::string& what, const std::string& kernel, std::set<std::string> fast_ops = {}) {
  SCOPED_TRACE(what);
  auto model = model_of(s);
  const auto feeds = feeds_of(s);
  SessionOptions ref_opts;
  ref_opts.reference_kernels = true;
  const auto want = Session(model, ref_opts).run(feeds);
  SessionOptions fast_opts;
  fast_opts.num_threads = 2;
  Session fast(model, fast_opts);
  if (fast_ops.empty()) fast_ops = {s.nodes.back().op_type};
  for (int round = 0; round < 2; ++round) {
    RunProfile prof;
    const auto got = fast.run(feeds, &prof);
    for (const auto& r : prof.nodes) {
      const Node& n = fast.model().graph.nodes[r.node_index];
      if (fast_ops.count(n.op_type)) EXPECT_EQ(r.kernel, kernel) << n.label();
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) expect_same(got[i].tensor, want[i].tensor, s.outputs[i]);
  }
}

// The error message of a run (empty when it succeeds).
std::string run_error(const Spec& s, bool reference) {
  SessionOptions o;
  o.reference_kernels = reference;
  try {
    Session(model_of(s), o).run(feeds_of(s));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void expect_reference_error(const Spec& s) {
  const std::string ref = run_error(s, true);
  EXPECT_FALSE(ref.empty());
  EXPECT_EQ(run_error(s, false), ref);
}

const DType kDtypes[] = {DType::Float32, DType::Int64, DType::UInt8, DType::Float16, DType::Float64, DType::Bool};

// --- Pad ---

void check_pad(const Shape& shape, const std::string& mode, std::vector<int64_t> pads, DType dt, uint32_t seed,
               std::optional<std::vector<int64_t>> axes = std::nullopt, bool with_value = false) {
  Spec s;
  s.inputs = {{"x", random_bytes(dt, shape, seed)}};
  s.weights["pads"] = i64(pads);
  std::vector<std::string> in = {"x", "pads"};
  if (with_value || axes) {
    in.push_back(with_value ? "value" : "");
    if (with_value) s.weights["value"] = random_bytes(dt, {}, seed + 1000);
  }
  if (axes) in.push_back("axes"), s.weights["axes"] = i64(*axes);
  Node n = make_node("Pad", in, {"y"});
  n.attrs["mode"] = Attribute::of_string(mode);
  s.nodes = {n};
  std::string p;
  for (int64_t v : pads) p += std::to_string(v) + ",";
  check(s, "Pad " + mode + " " + shape_str(shape) + " pads " + p + " " + std::string(dtype_name(dt)), "pad_fast");
}

TEST(FastPad, RandomShapesModesAndPads) {
  std::mt19937 rng(5);
  const char* modes[] = {"constant", "reflect", "edge", "wrap"};
  for (int iter = 0; iter < 200; ++iter) {
    const int rank = 1 + iter % 5;
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(1 + static_cast<int64_t>(rng() % (rank <= 2 ? 20 : 6)));
    const std::string mode = modes[iter % 4];
    std::vector<int64_t> pads(2 * rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t n = shape[d];
      // Mostly growth; a fifth of the pads crop (at most what the axis holds, both ends together).
      for (int side = 0; side < 2; ++side) {
        int64_t& p = pads[side * rank + d];
        p = rng() % 5 == 0 ? -static_cast<int64_t>(rng() % (n / 2 + 1)) : static_cast<int64_t>(rng() % 5);
        if (mode == "reflect") p = std::min<int64_t>(p, n - 1);  // ONNX's limit (the reference repeats beyond it)
      }
    }
    check_pad(shape, mode, pads, kDtypes[iter % 6], iter, std::nullopt, mode == "constant" && iter % 3 == 0);
  }
}

TEST(FastPad, EdgeCases) {
  check_pad({8, 576}, "reflect", {0, 0, 0, 64}, DType::Float32, 1);   // Silero VAD's STFT padding
  check_pad({1, 3, 5, 5}, "constant", {0, 0, 1, 1, 0, 0, 1, 1}, DType::Float32, 2, std::nullopt, true);
  check_pad({3, 4}, "constant", {0, -2, 0, -2}, DType::Float32, 3);     // crop to nothing: [3,0]
  check_pad({0, 4}, "constant", {1, 0, 2, 0}, DType::Float32, 4);       // padding an empty axis with the constant
  check_pad({2, 0}, "constant", {0, 0, 0, 0}, DType::Int64, 5);         // empty in, empty out
  check_pad({5}, "reflect", {4, 4}, DType::Int64, 6);
  check_pad({1, 7}, "reflect", {0, 3, 0, 3}, DType::Float32, 7);        // n == 1 axis untouched, padded axis
  check_pad({1}, "reflect", {2, 3}, DType::Float32, 8);                 // n == 1: every position is element 0
  check_pad({3}, "wrap", {7, 8}, DType::UInt8, 9);                      // wraps more than once
  check_pad({4, 5, 6}, "edge", {-1, 2, -2, 3, 0, -1}, DType::Float16, 10);  // crop and grow
  check_pad({2, 3, 4}, "constant", {1, 2, 3, 4}, DType::Float32, 11, std::vector<int64_t>{-1, 0});  // axes input
  check_pad({2, 3, 4}, "edge", {1, 1}, DType::Int64, 12, std::vector<int64_t>{1});
  check_pad({300, 400}, "constant", {5, 7, 9, 11}, DType::Float32, 13);  // threaded rows
}

TEST(FastPad, AttributesOfOlderOpsets) {
  Spec s;
  s.opset = 10;
  s.inputs = {{"x", random_bytes(DType::Float32, {3, 4}, 1)}};
  Node n = make_node("Pad", {"x"}, {"y"});
  n.attrs["pads"] = ints({1, 0, 2, -1});
  n.attrs["value"] = Attribute::of_float(2.5f);
  s.nodes = {n};
  check(s, "Pad opset 10 pads/value attributes", "pad_fast");
  n.attrs.erase("value");
  n.attrs["mode"] = Attribute::of_string("reflect");
  s.nodes = {n};
  check(s, "Pad opset 10 reflect", "pad_fast");
  // A constant from an attribute converted to an integer dtype.
  s.inputs = {{"x", random_bytes(DType::Int32, {3, 4}, 2)}};
  n.attrs["mode"] = Attribute::of_string("constant");
  n.attrs["value"] = Attribute::of_float(-7.f);
  s.nodes = {n};
  check(s, "Pad opset 10 int32 constant", "pad_fast");
}

TEST(FastPad, RuntimePadsFromAGraphInput) {
  Spec s;
  s.inputs = {{"x", random_bytes(DType::Float32, {4, 6}, 1)}, {"p", i64({1, -2, 3, 0})}};
  s.nodes = {make_node("Pad", {"x", "p"}, {"y"})};
  s.nodes[0].attrs["mode"] = Attribute::of_string("edge");
  check(s, "Pad with pads fed at run time", "pad_fast");
}

TEST(FastPad, BadParametersFallBackToReferenceError) {
  auto spec = [](Shape shape, std::string mode, std::vector<int64_t> pads) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Float32, shape, 1)}};
    s.weights["pads"] = i64(pads);
    s.nodes = {make_node("Pad", {"x", "pads"}, {"y"})};
    s.nodes[0].attrs["mode"] = Attribute::of_string(mode);
    return s;
  };
  expect_reference_error(spec({2, 3}, "constant", {1, 1}));               // too few pads
  expect_reference_error(spec({2, 3}, "constant", {0, -3, 0, -1}));       // crops more than the axis holds
  expect_reference_error(spec({2, 0}, "reflect", {0, 1, 0, 1}));          // reflect an empty axis
  expect_reference_error(spec({2, 3}, "edge", {0, int64_t{1} << 50, 0, 0}));  // out of range
}

// --- Shape and Size ---

TEST(FastShape, StartEndAndSize) {
  struct Case {
    std::optional<int64_t> start, end;
  };
  const Case cases[] = {{}, {1, {}}, {-2, {}}, {0, -1}, {2, 1}, {-10, 10}, {3, {}}};
  for (const auto& c : cases) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Float32, {2, 3, 4}, 1)}};
    Node n = make_node("Shape", {"x"}, {"y"});
    if (c.start) n.attrs["start"] = Attribute::of_int(*c.start);
    if (c.end) n.attrs["end"] = Attribute::of_int(*c.end);
    s.nodes = {n};
    check(s, "Shape start " + std::to_string(c.start.value_or(0)) + " end " + std::to_string(c.end.value_or(99)),
          "shape_fast");
  }
  Spec s;
  s.inputs = {{"x", random_bytes(DType::Int64, {0, 7}, 1)}};
  s.nodes = {make_node("Size", {"x"}, {"y"}), make_node("Shape", {"x"}, {"z"})};
  s.outputs = {"y", "z"};
  check(s, "Size and Shape of an empty tensor", "shape_fast", {"Size", "Shape"});
}

// --- Views ---

TEST(FastViews, ReshapeSqueezeUnsqueezeFlattenIdentity) {
  for (DType dt : kDtypes) {
    const std::string d(dtype_name(dt));
    auto one = [&](Node n, Shape shape, std::map<std::string, Tensor> weights, const std::string& what) {
      Spec s;
      s.inputs = {{"x", random_bytes(dt, shape, 3)}};
      // Behind a producer that writes into the arena (a fast Transpose, identity perm), so that the view
      // is of an arena value; and once straight on the graph input.
      for (int behind = 0; behind < 2; ++behind) {
        s.weights = weights;
        s.nodes.clear();
        Node v = n;
        if (behind) {
          Node t = make_node("Transpose", {"x"}, {"t"});
          std::vector<int64_t> perm(shape.size());
          for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
          t.attrs["perm"] = ints(perm);
          s.nodes.push_back(t);
          v.inputs[0] = "t";
        }
        s.nodes.push_back(v);
        check(s, what + " " + d + (behind ? " of an arena value" : " of a graph input"), "view");
      }
    };
    one(make_node("Reshape", {"x", "s"}, {"y"}), {2, 3, 4}, {{"s", i64({0, -1})}}, "Reshape 0,-1");
    one(make_node("Reshape", {"x", "s"}, {"y"}), {2, 3, 4}, {{"s", i64({4, 3, 2})}}, "Reshape 4,3,2");
    Node az = make_node("Reshape", {"x", "s"}, {"y"});
    az.attrs["allowzero"] = Attribute::of_int(1);
    one(az, {0, 3}, {{"s", i64({3, 0})}}, "Reshape allowzero");
    one(make_node("Squeeze", {"x", "a"}, {"y"}), {1, 3, 1, 2}, {{"a", i64({0, -2})}}, "Squeeze axes");
    one(make_node("Squeeze", {"x"}, {"y"}), {1, 3, 1, 2}, {}, "Squeeze all");
    one(make_node("Unsqueeze", {"x", "a"}, {"y"}), {3, 2}, {{"a", i64({0, -1, 2})}}, "Unsqueeze");
    Node f = make_node("Flatten", {"x"}, {"y"});
    one(f, {2, 3, 4}, {}, "Flatten");
    f.attrs["axis"] = Attribute::of_int(-3);
    one(f, {2, 3, 4}, {}, "Flatten axis -3");
    f.attrs["axis"] = Attribute::of_int(3);
    one(f, {2, 3, 4}, {}, "Flatten axis 3");
    one(make_node("Identity", {"x"}, {"y"}), {5, 2}, {}, "Identity");
  }
}

TEST(FastViews, SqueezeAndUnsqueezeAxesAsAttributes) {
  Spec s;
  s.opset = 11;
  s.inputs = {{"x", random_bytes(DType::Float32, {1, 4, 1}, 1)}};
  Node sq = make_node("Squeeze", {"x"}, {"q"});
  sq.attrs["axes"] = ints({-1});
  Node un = make_node("Unsqueeze", {"q"}, {"y"});
  un.attrs["axes"] = ints({3, 0});
  s.nodes = {sq, un};
  check(s, "opset 11 axes attributes", "view", {"Squeeze", "Unsqueeze"});
}

TEST(FastViews, ViewsShareTheInputStorage) {
  Spec s;
  s.inputs = {{"x", random_bytes(DType::Float32, {2, 6}, 1)}};
  s.weights["s"] = i64({3, 4});
  s.nodes = {make_node("Relu", {"x"}, {"r"}), make_node("Reshape", {"r", "s"}, {"v"}),
             make_node("Flatten", {"v"}, {"y"})};
  SessionOptions o;
  o.activation_arena = false;  // values on the heap: a view is the producer's own buffer
  Session session(model_of(s), o);
  ValueWatch watch;
  watch.names = {"r", "v", "y"};
  std::map<std::string, const void*> at;
  watch.see = [&](const std::string& n, const Tensor& t) { at[n] = t.raw(); };
  session.run(feeds_of(s), nullptr, &watch);
  ASSERT_EQ(at.size(), 3u);
  EXPECT_EQ(at["v"], at["r"]);
  EXPECT_EQ(at["y"], at["r"]);
}

TEST(FastViews, ArenaViewFeedingAnInPlaceConsumer) {
  // v views r; the Add may write over v's slot in place (nothing reads v after it), while r is
  // still read by the Mul: the arena must not let the two share bytes then.
  Spec s;
  s.inputs = {{"x", random_tensor({4, 8}, 1)}};
  s.weights["s"] = i64({8, 4});
  s.weights["s2"] = i64({4, 8});
  s.weights["c"] = random_tensor({8, 4}, 2);
  s.nodes = {make_node("Relu", {"x"}, {"r"}),       make_node("Reshape", {"r", "s"}, {"v"}),
             make_node("Add", {"v", "c"}, {"a"}),   make_node("Reshape", {"a", "s2"}, {"a2"}),
             make_node("Mul", {"r", "r"}, {"m"}),   make_node("Add", {"a2", "m"}, {"y"})};
  check(s, "view into an in-place chain", "view", {"Reshape"});
}

TEST(FastViews, BadParametersFallBackToReferenceError) {
  auto spec = [](Node n, Shape shape, std::map<std::string, Tensor> w) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Float32, shape, 1)}};
    s.weights = std::move(w);
    s.nodes = {std::move(n)};
    return s;
  };
  expect_reference_error(spec(make_node("Reshape", {"x", "s"}, {"y"}), {2, 3}, {{"s", i64({4, -1})}}));
  expect_reference_error(spec(make_node("Reshape", {"x", "s"}, {"y"}), {2, 3}, {{"s", i64({-1, -1})}}));
  expect_reference_error(spec(make_node("Squeeze", {"x", "a"}, {"y"}), {2, 3}, {{"a", i64({0})}}));
  expect_reference_error(spec(make_node("Squeeze", {"x", "a"}, {"y"}), {1, 3}, {{"a", i64({2})}}));
  expect_reference_error(spec(make_node("Unsqueeze", {"x", "a"}, {"y"}), {2, 3}, {{"a", i64({1, 1})}}));
  Node f = make_node("Flatten", {"x"}, {"y"});
  f.attrs["axis"] = Attribute::of_int(4);
  expect_reference_error(spec(f, {2, 3}, {}));
}

// Runs `s` with fast kernels, scribbles over every output, runs again: the second run's outputs,
// the model's initializers and the caller's feeds must be as before.
void expect_outputs_are_callers_own(const Spec& s, const std::string& what) {
  SCOPED_TRACE(what);
  auto model = model_of(s);
  std::vector<Value> feeds = feeds_of(s);
  std::vector<Tensor> feeds_before;
  for (const auto& f : feeds) feeds_before.push_back(f.tensor.clone());
  std::map<std::string, Tensor> weights_before;
  for (const auto& [n, t] : model->graph.initializers) weights_before[n] = t.clone();
  for (bool reference : {false, true}) {
    SessionOptions o;
    o.reference_kernels = reference;
    Session session(model, o);
    auto first = session.run(feeds);
    std::vector<Tensor> want;
    for (auto& v : first) {
      want.push_back(v.tensor.clone());
      std::memset(v.tensor.raw(), 0x5a, v.tensor.nbytes());
    }
    const auto second = session.run(feeds);
    for (size_t i = 0; i < second.size(); ++i) expect_same(second[i].tensor, want[i], "output after a write");
    for (size_t i = 0; i < feeds.size(); ++i) expect_same(feeds[i].tensor, feeds_before[i], "feed");
    for (const auto& [n, t] : session.model().graph.initializers)
      if (weights_before.count(n)) expect_same(t, weights_before.at(n), "initializer " + n);
  }
}

TEST(FastViews, OutputsNeverAliasInitializersConstantsOrFeeds) {
  Spec s;
  s.inputs = {{"x", random_tensor({2, 3}, 1)}};
  s.weights["w"] = random_tensor({6}, 2);
  s.weights["s"] = i64({2, 3});
  Node c = make_node("Constant", {}, {"k"});
  c.attrs["value"] = Attribute::of_tensor(random_tensor({3, 1}, 3));
  s.nodes = {make_node("Reshape", {"w", "s"}, {"y"}),     // a view of an initializer
             make_node("Identity", {"x"}, {"xi"}),        // of a graph input
             make_node("Flatten", {"x"}, {"xu"}),         // of a graph input
             c, make_node("Squeeze", {"k"}, {"ks"}),      // of a Constant
             make_node("Identity", {"w"}, {"wi"})};
  s.outputs = {"y", "xi", "xu", "ks", "wi"};
  expect_outputs_are_callers_own(s, "main graph");
}

TEST(FastViews, IfBodyOutputViewingAnOuterInitializer) {
  Spec s;
  s.inputs = {{"c", Tensor::scalar<bool>(true)}};
  s.weights["w"] = random_tensor({2, 2}, 1);
  s.weights["s"] = i64({4});
  auto branch = [](const std::string& op) {
    auto g = std::make_shared<Graph>();
    g->name = op;
    g->nodes = {op == "Reshape" ? make_node("Reshape", {"w", "s"}, {"b"}) : make_node("Identity", {"w"}, {"b"})};
    g->outputs = {{"b", TypeInfo::tensor_unknown_shape(DType::Float32)}};
    return g;
  };
  Node n = make_node("If", {"c"}, {"y"});
  Attribute then_g, else_g;
  then_g.type = else_g.type = AttrType::Graph;
  then_g.g = branch("Reshape");
  else_g.g = branch("Identity");
  n.attrs["then_branch"] = then_g;
  n.attrs["else_branch"] = else_g;
  s.nodes = {n};
  expect_outputs_are_callers_own(s, "If body");
  s.inputs = {{"c", Tensor::scalar<bool>(false)}};
  expect_outputs_are_callers_own(s, "If else body");
}

// --- Comparisons, Not, ConstantOfShape ---

TEST(FastCompare, DtypesAndBroadcasts) {
  const char* ops[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
  const DType dts[] = {DType::Float32, DType::Int64, DType::Int32, DType::UInt8, DType::Float64, DType::Bool};
  const std::pair<Shape, Shape> shapes[] = {{{}, {}}, {{3, 4}, {3, 4}}, {{3, 4}, {}}, {{1}, {2, 5}}, {{0, 2}, {1}}};
  int seed = 0;
  for (const char* op : ops)
    for (DType dt : dts)
      for (const auto& [sa, sb] : shapes) {
        Spec s;
        // Few distinct byte values, so that equal elements occur.
        Tensor a = random_bytes(dt, sa, ++seed), b = random_bytes(dt, sb, ++seed);
        for (Tensor* t : {&a, &b})
          for (size_t i = 0; i < t->nbytes(); ++i) static_cast<unsigned char*>(t->raw())[i] &= dt == DType::Bool ? 1 : 3;
        if (dt == DType::Float32 || dt == DType::Float64)  // small integers as floats, NaN-free
          for (Tensor* t : {&a, &b})
            for (int64_t i = 0; i < t->numel(); ++i) {
              const double v = static_cast<double>(static_cast<unsigned char*>(t->raw())[i * dtype_size(dt)] & 3) - 1;
              if (dt == DType::Float32) t->data<float>()[i] = static_cast<float>(v);
              else t->data<double>()[i] = v;
            }
        s.inputs = {{"a", a}, {"b", b}};
        s.nodes = {make_node(op, {"a", "b"}, {"y"})};
        check(s, std::string(op) + " " + std::string(dtype_name(dt)) + " " + shape_str(sa) + " vs " + shape_str(sb), "compare_fast");
      }
  // The sample-rate test Silero VAD makes: an int64 scalar input against an initializer.
  Spec s;
  s.inputs = {{"sr", Tensor::scalar<int64_t>(16000)}};
  s.weights["k"] = Tensor::scalar<int64_t>(16000);
  s.nodes = {make_node("Equal", {"sr", "k"}, {"y"})};
  check(s, "Equal int64 scalars", "compare_fast");
}

TEST(FastCompare, UnhandledBroadcastRunsOnTheReference) {
  Spec s;
  s.inputs = {{"a", random_tensor({3, 1}, 1)}, {"b", random_tensor({1, 4}, 2)}};
  s.nodes = {make_node("Less", {"a", "b"}, {"y"})};
  check(s, "Less [3,1] vs [1,4]", "reference");
  s.inputs = {{"a", random_tensor({3, 2}, 1)}, {"b", random_tensor({4}, 2)}};
  expect_reference_error(s);
}

TEST(FastNot, BoolTensors) {
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 0}, Shape{2, 3, 5}}) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Bool, shape, 1)}};
    s.nodes = {make_node("Not", {"x"}, {"n"}), make_node("Not", {"n"}, {"y"})};  // the second may run in place
    s.outputs = {"n", "y"};
    check(s, "Not " + shape_str(shape), "logical_fast");
  }
}

TEST(FastConstantOfShape, ValuesAndShapes) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {3}, {2, 0, 4}, {2, 3, 4}};
  for (const auto& dims : shapes)
    for (int v = 0; v < 4; ++v) {
      Spec s;
      s.inputs = {{"s", i64(dims)}};
      Node n = make_node("ConstantOfShape", {"s"}, {"y"});
      if (v == 1) n.attrs["value"] = Attribute::of_tensor(Tensor::from_vector<int64_t>({-5}, {1}));
      if (v == 2) n.attrs["value"] = Attribute::of_tensor(Tensor::from_vector<float>({2.5f}, {1}));
      if (v == 3) n.attrs["value"] = Attribute::of_tensor(Tensor::from_vector<bool>({true}, {1}));
      s.nodes = {n};
      check(s, "ConstantOfShape " + shape_str(dims) + " value " + std::to_string(v), "constant_of_shape_fast");
    }
  Spec s;
  s.inputs = {{"s", i64({2, -1})}};
  s.nodes = {make_node("ConstantOfShape", {"s"}, {"y"})};
  expect_reference_error(s);
}

}  // namespace
}  // namespace ms::test
