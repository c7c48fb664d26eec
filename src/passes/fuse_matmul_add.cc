// fuse_matmul_add: MatMul followed by the Add of a constant bias (a Linear layer) becomes one op:
//   MatMul(A, B) + C = Gemm(A, B, C)              when A and B are 2-D (C broadcasts to [M, N])
//   MatMul(A, B) + c = FusedMatMul(A, B, c)       otherwise, for a bias c over the last dim
// (com.mstools FusedMatMul, ops/fused_mat_mul.cc; only when the output format can carry it).
#include "ops/ms_domain.h"
#include "passes/pass_list.h"

namespace ms::passes {
namespace {

struct Found {
  size_t matmul, add;
  std::string bias;
  bool gemm;
  Shape bias_shape;  // reshaped to this when it differs from the constant's
};

class MatMulAddPattern : public TypedPattern<Found> {
 public:
  explicit MatMulAddPattern(const PassContext& ctx) : allow_ms_domain_(ctx.allow_ms_domain) {}
  std::vector<std::string> anchors() const override { return {"Add"}; }
  MatchResult<Found> match(Rewriter& rw, size_t index) override {
    const Node& add = rw.node(index);
    if (add.inputs.size() != 2) return NoMatch{};
    for (size_t x = 0; x < 2; ++x) {
      const Node* mm = input_producer(rw, add, x, "MatMul");
      const Tensor* c = rw.constant(add.inputs[1 - x]);
      if (!mm || !c) continue;
      if (!rw.only_used_by(add.inputs[x], index)) return NoMatch{"MatMul output has another reader"};
      auto sa = rw.static_shape(mm->inputs[0]), sb = rw.static_shape(mm->inputs[1]), so = rw.static_shape(add.outputs[0]);
      if (!sa || !sb || !so) return NoMatch{"shapes not static"};
      if (so != rw.static_shape(add.inputs[x])) return NoMatch{"the bias broadcasts the product to a larger shape"};
      const size_t mi = static_cast<size_t>(rw.producer_index(add.inputs[x]));
      if (sa->size() == 2 && sb->size() == 2 && c->rank() <= 2) return Found{mi, index, add.inputs[1 - x], true, c->shape()};
      if (!allow_ms_domain_) return NoMatch{"output format cannot carry com.mstools FusedMatMul"};
      const int64_t n = so->back();
      if (c->numel() != n || (c->rank() > 0 && c->dim(-1) != n)) return NoMatch{"bias is not over the last dimension"};
      return Found{mi, index, add.inputs[1 - x], false, Shape{n}};
    }
    return NoMatch{};
  }
  void rewrite(Rewriter& rw, const Found& f) override {
    const Node& mm = rw.node(f.matmul);
    Node n;
    n.name = mm.name;
    n.inputs = {mm.inputs[0], mm.inputs[1], f.bias};
    n.outputs = {rw.node(f.add).outputs[0]};
    const Tensor& c = *rw.constant(f.bias);
    if (c.shape() != f.bias_shape) n.inputs[2] = rw.add_initializer(f.bias + "_1d", c.reshaped(f.bias_shape));
    if (f.gemm) {
      n.op_type = "Gemm";
    } else {
      n.op_type = "FusedMatMul";
      n.domain = kMsDomain;
      rw.require_domain(kMsDomain, kMsDomainVersion);
    }
    rw.replace({f.matmul, f.add}, {std::move(n)});
  }

 private:
  bool allow_ms_domain_;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_matmul_add() {
  return std::make_unique<PatternPass>("fuse_matmul_add", "MatMul + constant bias Add -> Gemm (2-D) or com.mstools FusedMatMul",
                                       single_pattern<MatMulAddPattern>());
}

}  // namespace ms::passes
