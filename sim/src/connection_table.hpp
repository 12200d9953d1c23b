// A party's state per connection, kept by the simulated world for every party.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "pmixflow/proto/messages.hpp"

namespace pmixflow::sim {

// A party's state per connection, by the address at the other end. Looked up on every
// message: open addressing on a flat array, sized by the party's own connections, with no
// per-entry allocation. Kept at most 3/4 full (probes stay short): in a replay every daemon
// holds a connection from each user that submits through it, nodes x users in all, and a
// half-empty table would double that.
template <class T>
class ConnectionTable {
 public:
  // The reference stays valid until an address new to the table is added.
  T& operator[](Address a) {
    const std::uint64_t key = key_of(a);
    if (4 * (size_ + 1) > 3 * slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (s.key == 0) {
        s.key = key;
        ++size_;
        return s.value;
      }
    }
  }
  // The entry for `a`, or null: looking does not add one.
  T* find(Address a) {
    if (slots_.empty()) return nullptr;
    const std::uint64_t key = key_of(a);
    for (std::size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == 0) return nullptr;
    }
  }
  void clear() {
    slots_.clear();
    size_ = 0;
    shift_ = 64;
  }
  // Every entry with its address, in Address order: what is done for each connection is
  // done in an order that does not depend on the table's layout.
  std::vector<std::pair<Address, T*>> in_order() {
    std::vector<Slot*> used;
    used.reserve(size_);
    for (auto& s : slots_)
      if (s.key != 0) used.push_back(&s);
    std::sort(used.begin(), used.end(), [](const Slot* a, const Slot* b) { return a->key < b->key; });
    std::vector<std::pair<Address, T*>> out;
    out.reserve(used.size());
    for (Slot* s : used) out.emplace_back(address_of(s->key), &s->value);
    return out;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0: free
    T value{};
  };
  // Ordered as Address is (kind, then index), and never 0.
  static std::uint64_t key_of(Address a) { return (static_cast<std::uint64_t>(a.kind) << 32 | a.index) + 1; }
  static Address address_of(std::uint64_t key) {
    return {static_cast<PartyKind>((key - 1) >> 32), static_cast<std::uint32_t>(key - 1)};
  }
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 8 : 2 * old.size();
    slots_ = std::vector<Slot>(capacity);
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    for (auto& s : old) {
      if (s.key == 0) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != 0) i = (i + 1) & (capacity - 1);
      slots_[i] = std::move(s);
    }
  }
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace pmixflow::sim
