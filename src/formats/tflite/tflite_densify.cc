#include "formats/tflite/tflite_densify.h"

#include <cstring>

namespace ms::tflite_format {

namespace {

std::vector<int64_t> index_vector(const void* table, mstflite::SparseIndexVector type, const std::string& where) {
  std::vector<int64_t> out;
  auto copy = [&](const auto* v) {
    if (v && v->values()) out.assign(v->values()->begin(), v->values()->end());
  };
  switch (type) {
    case mstflite::SparseIndexVector_Int32Vector: copy(static_cast<const mstflite::Int32Vector*>(table)); break;
    case mstflite::SparseIndexVector_Uint16Vector: copy(static_cast<const mstflite::Uint16Vector*>(table)); break;
    case mstflite::SparseIndexVector_Uint8Vector: copy(static_cast<const mstflite::Uint8Vector*>(table)); break;
    default: fail("{}: sparse index vector of unknown type {}", where, static_cast<int>(type));
  }
  return out;
}

struct Level {
  bool sparse = false;
  int64_t dense_size = 0;
  std::vector<int64_t> segments, indices;
};

}  // namespace

Tensor densify(const mstflite::SparsityParameters& sp, const Tensor& values, const Shape& shape, const std::string& where) {
  const int n = static_cast<int>(shape.size());
  if (!sp.traversal_order() || !sp.dim_metadata()) fail("{}: sparsity without traversal order or dimension metadata", where);
  const int levels = static_cast<int>(sp.traversal_order()->size());
  std::vector<int64_t> order(sp.traversal_order()->begin(), sp.traversal_order()->end());
  std::vector<int64_t> block_map;
  if (sp.block_map()) block_map.assign(sp.block_map()->begin(), sp.block_map()->end());
  if (levels != n + static_cast<int>(block_map.size()) || static_cast<int>(sp.dim_metadata()->size()) != levels)
    fail("{}: sparsity has {} levels for a rank-{} tensor with {} blocked dimensions", where, levels, n, block_map.size());
  std::vector<Level> meta(levels);
  for (int l = 0; l < levels; ++l) {
    const auto* dm = sp.dim_metadata()->Get(l);
    if (order[l] < 0 || order[l] >= levels) fail("{}: traversal order entry {} out of range", where, order[l]);
    meta[l].sparse = dm->format() == mstflite::DimensionType_SPARSE_CSR;
    meta[l].dense_size = dm->dense_size();
    if (meta[l].sparse) {
      meta[l].segments = index_vector(dm->array_segments(), dm->array_segments_type(), where);
      meta[l].indices = index_vector(dm->array_indices(), dm->array_indices_type(), where);
    }
  }
  // Expanded dimension d < n is original dim d divided by its block size; d >= n is a block.
  std::vector<int64_t> block_size(n, 1);
  for (int l = 0; l < levels; ++l)
    if (order[l] >= n) {
      int64_t j = order[l] - n;
      if (j >= static_cast<int64_t>(block_map.size()) || block_map[j] < 0 || block_map[j] >= n) fail("{}: bad block map", where);
      block_size[block_map[j]] = meta[l].dense_size;
    }
  // Dense levels must span exactly their dimension (block count or block size), which also bounds
  // the traversal.
  for (int l = 0; l < levels; ++l) {
    int64_t d = order[l];
    int64_t extent = d < n ? (block_size[d] > 0 ? shape[d] / block_size[d] : -1) : meta[l].dense_size;
    if (!meta[l].sparse && (meta[l].dense_size != extent || extent < 0))
      fail("{}: dense level {} has size {}, dimension {} needs {}", where, l, meta[l].dense_size, d, extent);
  }
  Tensor out(values.dtype(), shape);
  const size_t es = dtype_size(values.dtype());
  std::vector<int64_t> idx(levels, 0);
  // pos: the element's position within the level being entered (the CSR segment slot).
  auto walk = [&](auto&& self, int l, int64_t pos) -> void {
    if (l == levels) {
      if (pos < 0 || pos >= values.numel()) fail("{}: sparse value index {} out of range", where, pos);
      int64_t flat = 0;
      for (int d = 0; d < n; ++d) {
        int64_t coord = idx[d] * block_size[d];
        for (size_t j = 0; j < block_map.size(); ++j)
          if (block_map[j] == d) coord += idx[n + j];
        if (coord < 0 || coord >= shape[d]) fail("{}: sparse coordinate {} outside dimension {} of size {}", where, coord, d, shape[d]);
        flat = flat * shape[d] + coord;
      }
      std::memcpy(static_cast<char*>(out.raw()) + flat * es, static_cast<const char*>(values.raw()) + pos * es, es);
      return;
    }
    const Level& m = meta[l];
    if (!m.sparse) {
      for (int64_t i = 0; i < m.dense_size; ++i) {
        idx[order[l]] = i;
        self(self, l + 1, pos * m.dense_size + i);
      }
      return;
    }
    if (pos < 0 || pos + 1 >= static_cast<int64_t>(m.segments.size())) fail("{}: sparse segment {} out of range", where, pos);
    for (int64_t p = m.segments[pos]; p < m.segments[pos + 1]; ++p) {
      if (p < 0 || p >= static_cast<int64_t>(m.indices.size())) fail("{}: sparse index slot {} out of range", where, p);
      idx[order[l]] = m.indices[p];
      self(self, l + 1, p);
    }
  };
  walk(walk, 0, 0);
  return out;
}

}  // namespace ms::tflite_format
