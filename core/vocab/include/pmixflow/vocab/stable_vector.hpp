// A sequence that grows by fixed blocks. Its elements never move, so other structures may view
// them (an index of strings kept in them), and a million records cost their own size: no
// doubling array held twice while it moves, as std::vector's, and not a block of its own for
// each record over 256 bytes, as libstdc++'s std::deque makes.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

namespace pmixflow {

template <class T, std::size_t kBlock = 1024>
class StableVector {
 public:
  StableVector() = default;
  StableVector(std::initializer_list<T> values) {
    for (const T& v : values) emplace_back(v);
  }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (blocks_.empty() || blocks_.back().size() == kBlock) {
      blocks_.emplace_back();
      blocks_.back().reserve(kBlock);  // filled to here and no further: it never reallocates
    }
    ++size_;
    return blocks_.back().emplace_back(std::forward<Args>(args)...);
  }
  T& push_back(T&& value) { return emplace_back(std::move(value)); }
  T& push_back(const T& value) { return emplace_back(value); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T& operator[](std::size_t i) const { return blocks_[i / kBlock][i % kBlock]; }
  const T& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("StableVector::at");
    return (*this)[i];
  }

  template <bool kConst>
  class Iterator {
   public:
    using Owner = std::conditional_t<kConst, const StableVector, StableVector>;
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    Iterator() = default;
    Iterator(Owner* owner, std::size_t i) : owner_(owner), i_(i) {}
    reference operator*() const { return (*owner_)[i_]; }
    pointer operator->() const { return &(*owner_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator was = *this;
      ++i_;
      return was;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

   private:
    Owner* owner_ = nullptr;
    std::size_t i_ = 0;
  };
  Iterator<false> begin() { return {this, 0}; }
  Iterator<false> end() { return {this, size_}; }
  Iterator<true> begin() const { return {this, 0}; }
  Iterator<true> end() const { return {this, size_}; }

 private:
  std::vector<std::vector<T>> blocks_;  // moving a block moves its buffer, not its elements
  std::size_t size_ = 0;
};

}  // namespace pmixflow
