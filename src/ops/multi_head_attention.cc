// com.mstools MultiHeadAttention: scaled dot-product attention over num_heads heads of already
// projected queries, keys and values:
//   Qh = heads(Q) [B,H,Sq,D], Kh = heads(K) [B,H,Sk,D], Vh = heads(V) [B,H,Sk,Dv]
//   Y  = merge(Softmax(Qh * Kh^T * scale + mask, axis=-1) * Vh)   [B,Sq,H*Dv]
//   with heads(X[B,S,H*D]) = Transpose(Reshape(X, [B,S,H,D]), [0,2,1,3]) and merge its inverse.
//   inputs     Q [B,Sq,H*D], K [B,Sk,H*D], V [B,Sk,H*Dv], mask (optional, additive, broadcast to
//              [B,H,Sq,Sk])
//   attributes num_heads (int, required), scale (float; 0 = 1/sqrt(D))
// Produced by the optimizer's attention fusion from the MatMul/Reshape/Transpose/Softmax chain
// PyTorch exports; computed here with the reference kernels of exactly that chain.
#include <cmath>

#include "ops/kernel_util.h"
#include "ops/ms_domain.h"
#include "ops/op_call.h"

namespace ms {
namespace {

struct HeadDims {
  int64_t batch, seq, heads, dim;
};

HeadDims head_dims(const Tensor& x, int64_t heads, const char* what, const Node& node) {
  if (x.rank() != 3) fail("{}: {} must be 3-D [batch, seq, heads*dim], got {}", node.label(), what, shape_str(x.shape()));
  if (heads <= 0 || x.dim(2) % heads != 0)
    fail("{}: {} last dimension {} is not divisible by num_heads {}", node.label(), what, x.dim(2), heads);
  return {x.dim(0), x.dim(1), heads, x.dim(2) / heads};
}

Tensor shape_tensor(const std::vector<int64_t>& s) { return Tensor::from_vector<int64_t>(s, {static_cast<int64_t>(s.size())}); }

// [B,S,H*D] -> [B,H,S,D] (perm {0,2,1,3}) or [B,H,D,S] (perm {0,2,3,1}, keys pre-transposed).
Tensor split_heads(const Tensor& x, const HeadDims& d, std::vector<int64_t> perm, int opset, const std::string& name) {
  Tensor r = call_reference("Reshape", {x, shape_tensor({d.batch, d.seq, d.heads, d.dim})}, {}, opset, name)[0];
  return call_reference("Transpose", {r}, {{"perm", Attribute::of_ints(std::move(perm))}}, opset, name)[0];
}

}  // namespace

void register_op_multi_head_attention(OpRegistry& r) {
  r.add(OpDef("MultiHeadAttention", kMsDomain)
            .inputs(3, 4)
            .outputs(1)
            .attr("num_heads", AttrType::Int, true)
            .attr_float("scale", 0.0f)
            .infer_fn([](InferContext& ctx) {
              const TypeInfo& q = ctx.input_type(0);
              const TypeInfo& v = ctx.input_type(2);
              if (!q.shape || !v.shape || q.shape->size() != 3 || v.shape->size() != 3) {
                ctx.set_output_type(0, TypeInfo::tensor_unknown_shape(q.dtype));
                return;
              }
              ctx.set_output_type(0, TypeInfo::tensor(q.dtype, std::vector<Dim>{(*q.shape)[0], (*q.shape)[1], (*v.shape)[2]}));
            })
            .kernel_fn([](KernelContext& ctx) {
              const Node& node = ctx.node();
              const std::string& name = node.name;
              const int opset = ctx.opset();
              const int64_t heads = ctx.attr_int("num_heads");
              const HeadDims q = head_dims(ctx.input(0), heads, "Q", node);
              const HeadDims k = head_dims(ctx.input(1), heads, "K", node);
              const HeadDims v = head_dims(ctx.input(2), heads, "V", node);
              if (k.dim != q.dim || k.batch != q.batch || v.batch != q.batch || v.seq != k.seq)
                fail("{}: Q {}, K {} and V {} do not fit together", node.label(), shape_str(ctx.input(0).shape()),
                     shape_str(ctx.input(1).shape()), shape_str(ctx.input(2).shape()));
              double scale = ctx.attr_float("scale");
              if (scale == 0) scale = 1.0 / std::sqrt(static_cast<double>(q.dim));
              const DType dt = ctx.input(0).dtype();
              Tensor scale_t = call_reference("Cast", {Tensor::scalar<double>(scale)}, {{"to", Attribute::of_int(static_cast<int64_t>(dt))}},
                                              opset, name)[0];
              Tensor qh = split_heads(ctx.input(0), q, {0, 2, 1, 3}, opset, name);
              Tensor kt = split_heads(ctx.input(1), k, {0, 2, 3, 1}, opset, name);
              Tensor vh = split_heads(ctx.input(2), v, {0, 2, 1, 3}, opset, name);
              Tensor s = call_reference("MatMul", {qh, kt}, {}, opset, name)[0];
              s = call_reference("Mul", {s, scale_t}, {}, opset, name)[0];
              if (ctx.has_input(3)) s = call_reference("Add", {s, ctx.input(3)}, {}, opset, name)[0];
              Tensor p = call_reference("Softmax", {s}, {{"axis", Attribute::of_int(-1)}}, opset, name)[0];
              Tensor o = call_reference("MatMul", {p, vh}, {}, opset, name)[0];
              o = call_reference("Transpose", {o}, {{"perm", Attribute::of_ints({0, 2, 1, 3})}}, opset, name)[0];
              ctx.set_output(0, call_reference("Reshape", {o, shape_tensor({q.batch, q.seq, heads * v.dim})}, {}, opset, name)[0]);
            }));
}

}  // namespace ms
