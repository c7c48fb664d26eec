// TfIdfVectorizer: counts, per row, the pool's n-grams (min..max_gram_length items taken every
// skip+1 positions, skip <= max_skip_count) and outputs TF (count), IDF (weight if count > 0) or
// TFIDF (count * weight) at each n-gram's ngram_indexes slot.
#include <algorithm>
#include <map>

#include "ops/kernel_util.h"

namespace ms {

namespace {
template <class K>
void tfidf(KernelContext& ctx, const std::vector<K>& items, const std::vector<K>& pool, int64_t rows, int64_t cols,
           Tensor& out) {
  const std::string who = ctx.node().label();
  const auto& counts = ctx.attr_ints("ngram_counts");
  const auto& indexes = ctx.attr_ints("ngram_indexes");
  const auto& weights = ctx.attr_floats("weights");
  const int64_t min_n = ctx.attr_int("min_gram_length"), max_n = ctx.attr_int("max_gram_length");
  const int64_t max_skip = ctx.attr_int("max_skip_count");
  const std::string mode = ctx.attr_string("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") fail("{}: mode must be TF, IDF or TFIDF, got '{}'", who, mode);
  if (min_n < 1 || max_n < min_n || max_skip < 0)
    fail("{}: invalid gram lengths [{}, {}] or max_skip_count {}", who, min_n, max_n, max_skip);
  // pool n-gram -> output slot
  std::map<std::vector<K>, int64_t> slots;
  int64_t id = 0;
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  for (size_t g = 0; g < counts.size(); ++g) {
    const int64_t n = static_cast<int64_t>(g) + 1;
    const int64_t start = counts[g], end = g + 1 < counts.size() ? counts[g + 1] : pool_size;
    if (start < 0 || end > pool_size || start > end || (end - start) % n)
      fail("{}: ngram_counts {} do not partition a pool of {}", who, g, pool_size);
    for (int64_t p = start; p < end; p += n, ++id) {
      if (id >= static_cast<int64_t>(indexes.size())) fail("{}: fewer ngram_indexes than pool n-grams", who);
      slots[std::vector<K>(pool.begin() + p, pool.begin() + p + n)] = indexes[id];
    }
  }
  const int64_t width = out.dim(-1);
  float* o = out.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const K* row = items.data() + r * cols;
    for (int64_t n = min_n; n <= max_n; ++n)
      for (int64_t dist = 1; dist <= (n == 1 ? 1 : max_skip + 1); ++dist)
        for (int64_t i = 0; i + (n - 1) * dist < cols; ++i) {
          std::vector<K> gram;
          for (int64_t k = 0; k < n; ++k) gram.push_back(row[i + k * dist]);
          auto it = slots.find(gram);
          if (it == slots.end()) continue;
          if (it->second < 0 || it->second >= width) fail("{}: ngram index {} out of range", who, it->second);
          o[r * width + it->second] += 1;
        }
    for (int64_t j = 0; j < width; ++j) {
      float& v = o[r * width + j];
      const float w = j < static_cast<int64_t>(weights.size()) ? weights[j] : 1.0f;
      if (mode == "IDF") v = v > 0 ? w : 0;
      else if (mode == "TFIDF") v *= w;
    }
  }
}
}  // namespace

void register_op_tfidf_vectorizer(OpRegistry& r) {
  r.add(OpDef("TfIdfVectorizer")
            .inputs(1)
            .outputs(1)
            .attr("max_gram_length", AttrType::Int, true)
            .attr("max_skip_count", AttrType::Int, true)
            .attr("min_gram_length", AttrType::Int, true)
            .attr("mode", AttrType::String, true)
            .attr("ngram_counts", AttrType::Ints, true)
            .attr("ngram_indexes", AttrType::Ints, true)
            .attr_ints("pool_int64s")
            .attr_strings("pool_strings")
            .attr_floats("weights")
            .infer_fn([](InferContext& ctx) {
              const auto& idx = ctx.attr_ints("ngram_indexes");
              const Dim w = Dim::fixed(idx.empty() ? 0 : *std::max_element(idx.begin(), idx.end()) + 1);
              const TypeInfo& t = ctx.input_type(0);
              if (t.shape && t.shape->size() == 2)
                ctx.set_output_type(0, TypeInfo::tensor(DType::Float32, std::vector<Dim>{(*t.shape)[0], w}));
              else
                ctx.set_output_type(0, TypeInfo::tensor(DType::Float32, std::vector<Dim>{w}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const std::string who = ctx.node().label();
              const Tensor& x = ctx.input(0);
              if (x.rank() != 1 && x.rank() != 2) fail("{}: input must be [C] or [N, C], got {}", who, shape_str(x.shape()));
              const auto& idx = ctx.attr_ints("ngram_indexes");
              const int64_t width = idx.empty() ? 0 : *std::max_element(idx.begin(), idx.end()) + 1;
              const int64_t rows = x.rank() == 2 ? x.dim(0) : 1, cols = x.dim(-1);
              Tensor out(DType::Float32, x.rank() == 2 ? Shape{rows, width} : Shape{width});
              if (x.dtype() == DType::String) {
                const std::string* p = x.data<std::string>();
                tfidf(ctx, std::vector<std::string>(p, p + x.numel()), ctx.attr_strings("pool_strings"), rows, cols, out);
              } else if (x.dtype() == DType::Int32 || x.dtype() == DType::Int64) {
                tfidf(ctx, x.to_int64_vector(), ctx.attr_ints("pool_int64s"), rows, cols, out);
              } else {
                fail_unsupported("{}: dtype {} is not supported (int32, int64, string)", who, dtype_name(x.dtype()));
              }
              ctx.set_output(0, std::move(out));
            }));
}

}  // namespace ms
