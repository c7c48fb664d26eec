// Shared by the importers that translate foreign graphs into the IR (TensorFlow, TFLite): a small
// graph builder that keeps value names unique, and the NHWC helpers. TF and TFLite lay images out
// NHWC while the IR's Conv/Pool/Resize/BatchNormalization are NCHW, so each layout-sensitive op
// is wrapped in Transposes and cancel_layout_transposes() removes the pairs that meet.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"

namespace ms::importer {

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& g) : g_(g) {}
  Graph& graph() { return g_; }

  // `base` when it is still free, else `base_2`, `base_3`, ... Reserves the name.
  std::string unique_name(const std::string& base);
  // Marks a name as taken (graph inputs and values named after the source model).
  void reserve(const std::string& name) { used_.insert(name); }

  // Appends a node whose outputs are named `outputs` (taken as given: reserve them first) .
  Node& add_node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                 std::map<std::string, Attribute> attrs = {}, const std::string& node_name = "");
  // Appends a node with one fresh output named after `hint`; returns the output name.
  std::string add(const std::string& op, std::vector<std::string> inputs, const std::string& hint,
                  std::map<std::string, Attribute> attrs = {});
  // An initializer holding `t`; returns its name.
  std::string constant(Tensor t, const std::string& hint);
  std::string int64s(const std::vector<int64_t>& v, const std::string& hint);  // 1-D int64 constant

  std::string transpose(const std::string& x, const std::vector<int64_t>& perm, const std::string& hint);
  // NHWC -> NCHW and back for a value of rank `rank` (channels move between last and axis 1).
  std::string to_channels_first(const std::string& x, int rank, const std::string& hint);
  std::string to_channels_last(const std::string& x, int rank, const std::string& hint);

 private:
  Graph& g_;
  std::set<std::string> used_;
};

std::vector<int64_t> channels_first_perm(int rank);  // [0, r-1, 1, ..., r-2]
std::vector<int64_t> channels_last_perm(int rank);   // [0, 2, ..., r-1, 1]

// A deep copy of `t` with its axes permuted (out.dim(i) = t.dim(perm[i])); any dtype.
Tensor transpose_tensor(const Tensor& t, const std::vector<int64_t>& perm);

// TensorFlow/TFLite StridedSlice: begin/end/strides with the five bit masks. Emitted as Slice,
// then Squeeze (shrink axes), then Unsqueeze (new axes); the last node writes `out`. Axes after an
// ellipsis are addressed from the end, so the input's rank is not needed.
struct StridedSlice {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
};
void emit_strided_slice(GraphBuilder& b, const std::string& x, const StridedSlice& s, const std::string& out,
                        const std::string& hint);

// TensorFlow/TFLite image resize of an NCHW value to `size_hw` (an int64 [2] value), writing `out`.
// TF's source coordinate of output x: align_corners x*(in-1)/(out-1); half_pixel_centers
// (x+0.5)*in/out-0.5 (bilinear) or floor((x+0.5)*in/out) (nearest); else x*in/out. Nearest rounds
// half away from zero with align_corners and floors otherwise.
void emit_tf_resize(GraphBuilder& b, const std::string& x_nchw, const std::string& size_hw, bool bilinear,
                    bool align_corners, bool half_pixel_centers, const std::string& out, const std::string& hint);

// Moves Transposes forward through elementwise ops (whose operands are all Transposed the same way
// or constants) and through constant Pads, and removes Transpose pairs that undo each other, so
// that the layout changes between consecutive layout-sensitive ops disappear. Returns how many
// Transposes were removed.
size_t cancel_layout_transposes(Graph& g);

// The importers' last step: cancel layout Transposes (unless keep_layout: `--keepLayout` keeps every
// tensor of the file in its layout), then give the graph outputs the types that shape inference finds.
void finish_imported_graph(Model& m, bool keep_layout = false);

// --inputLayout NCHW: every rank-4 graph input becomes channels-first (its NHWC form is a Transpose
// inside the graph, which cancel_layout_transposes then meets with the importer's own one), and the
// graph is finished again. Returns how many inputs changed.
size_t inputs_to_channels_first(Model& m);

}  // namespace ms::importer
