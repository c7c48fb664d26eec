#include "ops/channel_layout.h"

namespace ms {
namespace {

int64_t int_attr(const Node& n, const char* name, int64_t def) {
  const Attribute* a = n.attr(name);
  return a && a->type == AttrType::Int ? a->i : def;
}

}  // namespace

std::optional<ChannelLayout> channel_layout_of(const Node& n) {
  if (!n.domain.empty()) return std::nullopt;
  if (n.op_type == "Conv") return ChannelLayout{};
  if (n.op_type == "ConvTranspose" && int_attr(n, "group", 1) == 1) return ChannelLayout{1, 1, 2, 1, false};
  if (n.op_type == "Gemm") return ChannelLayout{1, int_attr(n, "transB", 0) ? 0 : 1, 2, 1, true};
  return std::nullopt;
}

}  // namespace ms
