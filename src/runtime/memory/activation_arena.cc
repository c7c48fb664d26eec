#include "runtime/memory/activation_arena.h"

#include <cstring>

#include "runtime/memory/large_buffer.h"

namespace ms::rt {
void ActivationArena::plan(const Graph& g, const std::function<std::optional<size_t>(const std::string&)>& bytes_of,
                           const MemoryPlanOptions& opts) {
  plan_ = plan_activation_memory(g, bytes_of, opts);
  slots_.assign(g.nodes.size(), {});
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    slots_[k].resize(n.outputs.size());
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      auto it = n.outputs[o].empty() ? plan_.placements.end() : plan_.placements.find(n.outputs[o]);
      if (it != plan_.placements.end() && it->second.first_step == static_cast<int>(k))
        slots_[k][o] = Slot{it->second.offset, it->second.bytes, true};
    }
  }
  // A smaller plan keeps the buffer: shapes that alternate would otherwise reallocate every run.
  if (plan_.arena_bytes > capacity_) {
    buffer_.reset();
    capacity_ = 0;
    buffer_ = large_buffer(plan_.arena_bytes);
    capacity_ = plan_.arena_bytes;
  }
}

Tensor ActivationArena::slot_tensor(size_t node, size_t output, DType dtype, const Shape& shape, size_t bytes) const {
  if (node >= slots_.size() || output >= slots_[node].size() || dtype == DType::String) return {};
  const Slot& s = slots_[node][output];
  if (!s.planned || bytes > s.bytes || s.offset + bytes > capacity_) return {};
  return Tensor::view(dtype, shape, static_cast<char*>(buffer_.get()) + s.offset, buffer_);
}

bool ActivationArena::contains(const void* p) const {
  const char* base = static_cast<const char*>(buffer_.get());
  const char* c = static_cast<const char*>(p);
  return base && c >= base && c < base + capacity_;
}

bool ActivationArena::is_own_slot(size_t node, size_t output, const void* p) const {
  if (node >= slots_.size() || output >= slots_[node].size() || !slots_[node][output].planned) return false;
  return p == static_cast<const char*>(buffer_.get()) + slots_[node][output].offset;
}

namespace {

// A copy of `t` (not a string tensor) in a recycled run buffer: a graph output copied out of the
// arena on every run would otherwise be faulted in page by page each time (large_buffer.h).
Tensor recycled_copy(const Tensor& t) {
  std::shared_ptr<void> owner = recycled_buffer(t.nbytes());
  std::memcpy(owner.get(), t.raw(), t.nbytes());
  void* p = owner.get();
  return Tensor::view(t.dtype(), t.shape(), p, std::move(owner));
}

}  // namespace

void* ActivationArena::scratch(size_t bytes) {
  if (bytes > scratch_capacity_) {
    scratch_.reset();
    scratch_capacity_ = 0;
    scratch_ = large_buffer(bytes);
    scratch_capacity_ = bytes;
  }
  return scratch_.get();
}

std::optional<size_t> ActivationArena::settle_output(size_t node, size_t output, Value& v,
                                                     const std::vector<const Value*>& inputs) const {
  if (v.is_sequence()) {
    detach(v);
    return std::nullopt;
  }
  if (!v.is_tensor()) return std::nullopt;
  Tensor& t = v.tensor;
  if (!t.defined() || t.dtype() == DType::String || t.nbytes() == 0 || !contains(t.raw()) ||
      is_own_slot(node, output, t.raw()))
    return std::nullopt;
  std::optional<size_t> view_of;
  for (size_t i = 0; output == 0 && i < inputs.size() && !view_of; ++i)
    if (inputs[i] && inputs[i]->is_tensor() && inputs[i]->tensor.defined() && inputs[i]->tensor.raw() == t.raw() &&
        inputs[i]->tensor.nbytes() == t.nbytes())
      view_of = i;
  Tensor own = slot_tensor(node, output, t.dtype(), t.shape(), t.nbytes());
  if (own.defined()) {
    std::memcpy(own.raw(), t.raw(), t.nbytes());
    t = std::move(own);
  } else {
    t = recycled_copy(t);
  }
  return view_of;
}

void ActivationArena::detach(Value& v) const {
  auto detach_tensor = [&](Tensor& t) {
    if (t.defined() && t.dtype() != DType::String && t.nbytes() > 0 && contains(t.raw())) t = recycled_copy(t);
  };
  if (v.is_tensor()) detach_tensor(v.tensor);
  for (auto& t : v.sequence) detach_tensor(t);
}

}  // namespace ms::rt
