// Strings of a small vocabulary (requestor names, call kinds, entry points, profiles), kept once
// each: the records of a million-job replay view them instead of each holding its own copy.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "pmixflow/vocab/string_hash.hpp"

namespace pmixflow {

class StringPool {
 public:
  StringPool() = default;
  // A copy's views would still point into the original: the pool moves, and is never copied.
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // The pool's own copy of `s`, valid as long as the pool (moved or not) lives.
  std::string_view operator()(std::string_view s) {
    auto it = strings_.find(s);
    if (it == strings_.end()) it = strings_.emplace(s).first;
    return *it;
  }
  std::size_t size() const { return strings_.size(); }

 private:
  // Node-based: a string stays where it is as the set grows or moves, so its views stay valid.
  std::unordered_set<std::string, StringHash, std::equal_to<>> strings_;
};

}  // namespace pmixflow
