// Fast Transpose, Concat, Slice and Gather kernels against the reference kernels. They only move
// bytes, so results must be bit-identical; many seeded shapes, perms and axes, ranks 1-6, size-1
// dims, empty tensors, several element sizes, and the reference's errors for bad inputs.
#include <cstring>

#include "fast_kernels_util.h"

namespace ms::test {
namespace {

Tensor random_bytes(DType dt, const Shape& shape, uint32_t seed) {
  Tensor t(dt, shape);
  std::mt19937 rng(seed);
  auto* p = static_cast<unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(rng());
  return t;
}

Tensor i64(std::vector<int64_t> v) { return Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}); }

struct Spec {
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::map<std::string, Tensor> weights;
  int opset = 17;
};

std::shared_ptr<const Model> model_of(const Spec& s) {
  auto m = std::make_shared<Model>();
  m->opsets = {{"", s.opset}, {kMsDomain, kMsDomainVersion}};
  for (const auto& [name, t] : s.inputs) m->graph.inputs.push_back(tensor_info(name, t.dtype(), t.shape()));
  m->graph.initializers = s.weights;
  m->graph.nodes = s.nodes;
  m->graph.outputs.push_back({"y", TypeInfo::tensor_unknown_shape(s.inputs[0].second.dtype())});
  return m;
}

// Runs fast and reference; both must agree bit for bit, and the op must have run fast.
void check(const Spec& s, const std::string& what) {
  SCOPED_TRACE(what);
  auto model = model_of(s);
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  SessionOptions ref_opts;
  ref_opts.reference_kernels = true;
  SessionOptions fast_opts;
  fast_opts.num_threads = 3;
  const auto want = Session(model, ref_opts).run(feeds);
  Session fast(model, fast_opts);
  RunProfile prof;
  const auto got = fast.run(feeds, &prof);
  ASSERT_EQ(prof.nodes.size(), 1u);
  EXPECT_NE(std::string(prof.nodes[0].kernel).find("_fast"), std::string::npos) << "ran " << prof.nodes[0].kernel;
  ASSERT_EQ(got.size(), 1u);
  const Tensor& g = got[0].tensor;
  const Tensor& w = want[0].tensor;
  ASSERT_EQ(g.dtype(), w.dtype());
  ASSERT_EQ(g.shape(), w.shape());
  EXPECT_EQ(0, std::memcmp(g.raw(), w.raw(), w.nbytes())) << "bytes differ";
}

// The error message of a run (empty when it succeeds).
std::string run_error(const Spec& s, bool reference) {
  SessionOptions o;
  o.reference_kernels = reference;
  std::vector<Value> feeds;
  for (const auto& [name, t] : s.inputs) feeds.emplace_back(t);
  try {
    Session(model_of(s), o).run(feeds);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

Shape random_shape(std::mt19937& rng, int rank, int64_t max_dim) {
  Shape s;
  for (int d = 0; d < rank; ++d) s.push_back(1 + static_cast<int64_t>(rng() % max_dim));
  return s;
}

const DType kDtypes[] = {DType::Float32, DType::Int64, DType::UInt8, DType::Float16, DType::Float64};

// --- Transpose ---

void check_transpose(const Shape& shape, std::optional<std::vector<int64_t>> perm, DType dt, uint32_t seed) {
  Spec s;
  Node n = make_node("Transpose", {"x"}, {"y"});
  if (perm) n.attrs["perm"] = ints(*perm);
  s.nodes = {n};
  s.inputs = {{"x", random_bytes(dt, shape, seed)}};
  std::string p = "default";
  if (perm) {
    p.clear();
    for (int64_t v : *perm) p += std::to_string(v) + ",";
  }
  check(s, "Transpose " + shape_str(shape) + " perm " + p + " " + std::string(dtype_name(dt)));
}

TEST(FastTranspose, RandomShapesAndPerms) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 150; ++iter) {
    const int rank = 1 + iter % 6;
    Shape shape = random_shape(rng, rank, rank <= 3 ? 40 : 7);
    std::vector<int64_t> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    if (iter % 4 == 1) perm[0] -= rank;  // negative axis
    check_transpose(shape, perm, kDtypes[iter % 5], iter);
  }
}

TEST(FastTranspose, EdgeCases) {
  check_transpose({17, 33}, std::nullopt, DType::Float32, 1);              // default: reversed
  check_transpose({2, 1, 5, 1, 3}, std::nullopt, DType::Float32, 2);       // size-1 dims
  check_transpose({1, 1, 1}, std::vector<int64_t>{2, 0, 1}, DType::Float32, 3);
  check_transpose({4, 0, 3}, std::vector<int64_t>{2, 1, 0}, DType::Float32, 4);  // empty
  check_transpose({3, 4, 5}, std::vector<int64_t>{1, 0, 2}, DType::Float32, 5);  // inner dim unchanged
  check_transpose({2, 3, 4, 5}, std::vector<int64_t>{0, 1, 2, 3}, DType::Float32, 6);  // identity
  check_transpose({1, 12, 128, 64}, std::vector<int64_t>{0, 2, 1, 3}, DType::Float32, 7);  // attention heads
  check_transpose({1, 64, 56, 56}, std::vector<int64_t>{0, 2, 3, 1}, DType::Float32, 8);   // NCHW -> NHWC
  check_transpose({1, 56, 56, 64}, std::vector<int64_t>{0, 3, 1, 2}, DType::Float32, 9);   // NHWC -> NCHW
  check_transpose({257, 129}, std::vector<int64_t>{1, 0}, DType::Float32, 10);  // large, uneven tiles
  check_transpose({3, 5}, std::vector<int64_t>{1, 0}, DType::Bool, 11);
}

TEST(FastTranspose, BadPermFallsBackToReferenceError) {
  Spec s;
  Node n = make_node("Transpose", {"x"}, {"y"});
  n.attrs["perm"] = ints({0, 0});
  s.nodes = {n};
  s.inputs = {{"x", random_bytes(DType::Float32, {2, 3}, 1)}};
  const std::string ref = run_error(s, true);
  EXPECT_FALSE(ref.empty());
  EXPECT_EQ(run_error(s, false), ref);
}

// --- Concat ---

void check_concat(const std::vector<Shape>& shapes, int64_t axis, DType dt, uint32_t seed) {
  Spec s;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    s.inputs.push_back({names.back(), random_bytes(dt, shapes[i], seed + static_cast<uint32_t>(i))});
  }
  Node n = make_node("Concat", names, {"y"});
  n.attrs["axis"] = Attribute::of_int(axis);
  s.nodes = {n};
  std::string sh;
  for (const auto& x : shapes) sh += shape_str(x);
  check(s, "Concat " + sh + " axis " + std::to_string(axis) + " " + std::string(dtype_name(dt)));
}

TEST(FastConcat, RandomShapesAndAxes) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 120; ++iter) {
    const int rank = 1 + iter % 6;
    const Shape base = random_shape(rng, rank, rank <= 3 ? 30 : 6);
    const int64_t axis = static_cast<int64_t>(rng() % rank);
    std::vector<Shape> shapes;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      Shape s = base;
      s[axis] = static_cast<int64_t>(rng() % 9);  // 0 included: an empty input
      shapes.push_back(s);
    }
    check_concat(shapes, iter % 3 == 0 ? axis - rank : axis, kDtypes[iter % 5], iter);
  }
}

TEST(FastConcat, EdgeCases) {
  check_concat({{1, 128, 768}, {1, 1, 768}}, 1, DType::Float32, 1);
  check_concat({{0, 3}, {0, 3}}, 1, DType::Float32, 2);  // empty output
  check_concat({{4000, 17}, {4000, 3}}, -1, DType::Float32, 3);  // many small rows, threaded
  check_concat({{5}, {0}, {2}}, 0, DType::Int64, 4);
}

TEST(FastConcat, MismatchFallsBackToReferenceError) {
  Spec s;
  s.inputs = {{"a", random_bytes(DType::Float32, {2, 3}, 1)}, {"b", random_bytes(DType::Float32, {3, 3}, 2)}};
  Node n = make_node("Concat", {"a", "b"}, {"y"});
  n.attrs["axis"] = Attribute::of_int(1);
  s.nodes = {n};
  const std::string ref = run_error(s, true);
  EXPECT_FALSE(ref.empty());
  EXPECT_EQ(run_error(s, false), ref);
}

// --- Slice ---

void check_slice(const Shape& shape, std::vector<int64_t> starts, std::vector<int64_t> ends,
                 std::optional<std::vector<int64_t>> axes, std::optional<std::vector<int64_t>> steps, DType dt,
                 uint32_t seed, bool runtime_params = false) {
  Spec s;
  s.inputs = {{"x", random_bytes(dt, shape, seed)}};
  std::vector<std::string> in = {"x", "starts", "ends"};
  std::vector<std::pair<std::string, Tensor>> params = {{"starts", i64(starts)}, {"ends", i64(ends)}};
  if (axes || steps) in.push_back("axes"), params.push_back({"axes", i64(axes ? *axes : std::vector<int64_t>{})});
  if (!axes && steps) {
    // Default axes spelled out (an empty axes tensor would mean zero slices).
    std::vector<int64_t> a(starts.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int64_t>(i);
    params.back().second = i64(a);
  }
  if (steps) in.push_back("steps"), params.push_back({"steps", i64(*steps)});
  for (auto& [name, t] : params) {
    if (runtime_params) s.inputs.push_back({name, t});
    else s.weights[name] = t;
  }
  s.nodes = {make_node("Slice", in, {"y"})};
  auto str = [](const std::vector<int64_t>& v) {
    std::string r = "[";
    for (int64_t x : v) r += std::to_string(x) + ",";
    return r + "]";
  };
  check(s, "Slice " + shape_str(shape) + " starts " + str(starts) + " ends " + str(ends) + " axes " +
               (axes ? str(*axes) : "-") + " steps " + (steps ? str(*steps) : "-") + " " +
               std::string(dtype_name(dt)));
}

TEST(FastSlice, RandomSlices) {
  std::mt19937 rng(13);
  for (int iter = 0; iter < 250; ++iter) {
    const int rank = 1 + iter % 6;
    const Shape shape = random_shape(rng, rank, rank <= 3 ? 30 : 7);
    std::vector<int64_t> axes(rank);
    for (int i = 0; i < rank; ++i) axes[i] = i;
    std::shuffle(axes.begin(), axes.end(), rng);
    axes.resize(1 + rng() % rank);
    std::vector<int64_t> starts, ends, steps;
    for (int64_t& a : axes) {
      const int64_t dim = shape[a];
      auto pick = [&] {
        // In range, negative, or far outside (clamped).
        switch (rng() % 5) {
          case 0: return -static_cast<int64_t>(rng() % (dim + 3));
          case 1: return static_cast<int64_t>(rng() % 1000) - 500;
          case 2: return (rng() % 2) ? INT64_MAX : INT64_MIN;
          default: return static_cast<int64_t>(rng() % (dim + 2));
        }
      };
      starts.push_back(pick());
      ends.push_back(pick());
      const int64_t st = 1 + static_cast<int64_t>(rng() % 3);
      steps.push_back(rng() % 3 == 0 ? -st : (rng() % 2 ? 1 : st));
      if (rng() % 3 == 0) a -= rank;  // negative axis
    }
    check_slice(shape, starts, ends, axes, steps, kDtypes[iter % 5], iter);
  }
}

TEST(FastSlice, EdgeCases) {
  check_slice({1, 128, 768}, {0}, {1}, std::vector<int64_t>{1}, std::nullopt, DType::Float32, 1);  // CLS token
  check_slice({4, 6, 8}, {0, 0}, {4, 6}, std::nullopt, std::nullopt, DType::Float32, 2);          // whole dims
  check_slice({4, 6, 8}, {-1}, {INT64_MIN}, std::vector<int64_t>{2}, std::vector<int64_t>{-1}, DType::Float32, 3);  // reverse
  check_slice({4, 6, 8}, {-1}, {INT64_MIN}, std::vector<int64_t>{0}, std::vector<int64_t>{-1}, DType::Float32, 4);
  check_slice({4, 6, 8}, {3}, {3}, std::vector<int64_t>{1}, std::nullopt, DType::Float32, 5);  // empty output
  check_slice({4, 0, 8}, {0}, {2}, std::vector<int64_t>{0}, std::nullopt, DType::Float32, 6);  // empty input
  check_slice({9, 1, 7}, {0, 0}, {9, 7}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{2, 3}, DType::Float32, 7);
  check_slice({5, 300, 301}, {1, 2}, {-1, 299}, std::vector<int64_t>{1, 2}, std::nullopt, DType::Float32, 8, true);
  check_slice({6, 10}, {1}, {8}, std::vector<int64_t>{-1}, std::vector<int64_t>{2}, DType::UInt16, 9);
}

TEST(FastSlice, BadParamsFallBackToReferenceError) {
  for (int variant = 0; variant < 2; ++variant) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Float32, {4, 5}, 1)}};
    // Runtime inputs: inference cannot see them, so the kernels meet the bad values.
    s.inputs.push_back({"starts", i64({0, 0})});
    s.inputs.push_back({"ends", i64({2, 2})});
    s.inputs.push_back({"axes", i64(variant == 0 ? std::vector<int64_t>{1, -1} : std::vector<int64_t>{0, 1})});
    s.inputs.push_back({"steps", i64(variant == 0 ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{1, 0})});
    s.nodes = {make_node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"})};
    const std::string ref = run_error(s, true);
    EXPECT_FALSE(ref.empty());
    EXPECT_EQ(run_error(s, false), ref);
  }
}

// --- Gather ---

void check_gather(const Shape& shape, int64_t axis, const Tensor& indices, DType dt, uint32_t seed,
                  bool const_indices = false) {
  Spec s;
  s.inputs = {{"x", random_bytes(dt, shape, seed)}};
  if (const_indices) s.weights["i"] = indices;
  else s.inputs.push_back({"i", indices});
  Node n = make_node("Gather", {"x", "i"}, {"y"});
  n.attrs["axis"] = Attribute::of_int(axis);
  s.nodes = {n};
  check(s, "Gather " + shape_str(shape) + " axis " + std::to_string(axis) + " indices " + shape_str(indices.shape()) +
               " " + std::string(dtype_name(dt)));
}

TEST(FastGather, RandomShapesAxesAndIndices) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 150; ++iter) {
    const int rank = 1 + iter % 6;
    const Shape shape = random_shape(rng, rank, rank <= 3 ? 25 : 6);
    const int64_t axis = static_cast<int64_t>(rng() % rank);
    const int64_t dim = shape[axis];
    Shape ishape = random_shape(rng, static_cast<int>(rng() % 3), 5);  // rank 0 (scalar) to 2
    if (iter % 10 == 3) ishape = {0};                                   // no indices
    Tensor idx(iter % 2 ? DType::Int64 : DType::Int32, ishape);
    for (int64_t i = 0; i < idx.numel(); ++i) {
      const int64_t v = static_cast<int64_t>(rng() % (2 * dim)) - dim;  // [-dim, dim)
      if (iter % 2) idx.data<int64_t>()[i] = v;
      else idx.data<int32_t>()[i] = static_cast<int32_t>(v);
    }
    check_gather(shape, iter % 3 == 0 ? axis - rank : axis, idx, kDtypes[iter % 5], iter, iter % 4 == 0);
  }
}

TEST(FastGather, EdgeCases) {
  Tensor ids(DType::Int64, {1, 128});
  for (int64_t i = 0; i < 128; ++i) ids.data<int64_t>()[i] = (i * 7919) % 30522;
  check_gather({30522, 64}, 0, ids, DType::Float32, 1, false);  // embedding lookup
  check_gather({3, 0, 4}, 2, Tensor::scalar<int64_t>(-1), DType::Float32, 2);  // empty data
  check_gather({5, 7}, -1, Tensor::from_vector<int64_t>({6, 0, -7, 3}, {2, 2}), DType::Float16, 3, true);
}

// Big enough that the work is split between threads, so chunks start mid-odometer.
TEST(FastDataMove, ThreadedChunks) {
  check_transpose({50, 61, 40}, std::vector<int64_t>{1, 0, 2}, DType::Float32, 1);
  check_transpose({7, 50, 61, 3}, std::vector<int64_t>{2, 0, 3, 1}, DType::Float32, 2);
  check_slice({9, 70, 110, 7}, {1, 1}, {INT64_MAX, -1}, std::vector<int64_t>{1, 3}, std::vector<int64_t>{1, 3},
              DType::Float32, 3);
  check_slice({9, 70, 110, 7}, {-2, 0}, {INT64_MIN, 100}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{-1, 1},
              DType::Float32, 4);
  check_concat({{90, 70, 13}, {90, 70, 29}}, 2, DType::Float32, 5);
  Tensor idx(DType::Int64, {45});
  for (int64_t i = 0; i < 45; ++i) idx.data<int64_t>()[i] = (i * 37) % 100 - 50;
  check_gather({96, 50, 33}, 1, idx, DType::Float32, 6);
  Tensor idx2(DType::Int32, {333});
  for (int64_t i = 0; i < 333; ++i) idx2.data<int32_t>()[i] = static_cast<int32_t>((i * 131) % 800 - 400);
  check_gather({300, 400}, -1, idx2, DType::Float32, 7);
}

TEST(FastGather, OutOfRangeIndexGivesReferenceError) {
  for (int64_t bad : {5, -6}) {
    Spec s;
    s.inputs = {{"x", random_bytes(DType::Float32, {5, 3}, 1)},
                {"i", Tensor::from_vector<int64_t>({0, bad}, {2})}};
    s.nodes = {make_node("Gather", {"x", "i"}, {"y"})};
    const std::string ref = run_error(s, true);
    EXPECT_NE(ref.find("out of range"), std::string::npos) << ref;
    EXPECT_EQ(run_error(s, false), ref);
  }
}

}  // namespace
}  // namespace ms::test
