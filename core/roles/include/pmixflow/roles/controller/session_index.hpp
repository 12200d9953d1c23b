// The live sessions by what names them besides their id: the call that asked for them, their
// allocation, their owner's namespace. A job's end, a lost requestor or a PMIX_ALLOC_ID then
// costs what its matches cost, not a scan of every live session (on a large machine, tens of
// thousands).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>

namespace pmixflow {

struct SessionKeys {
  std::uint32_t id = 0;
  std::string corr;
  std::string alloc_id;
  std::string owner_nspace;
};

class SessionIndex {
 public:
  using Ids = std::set<std::uint32_t>;  // in id order, as the sessions themselves are kept

  void add(const SessionKeys& k);
  void remove(const SessionKeys& k);
  const Ids& of_call(const std::string& corr) const { return lookup(by_corr_, corr); }
  const Ids& of_alloc(const std::string& alloc_id) const { return lookup(by_alloc_, alloc_id); }
  const Ids& of_owner(const std::string& nspace) const { return lookup(by_owner_, nspace); }

 private:
  template <class Key>
  static const Ids& lookup(const std::unordered_map<Key, Ids>& index, const Key& key) {
    const auto it = index.find(key);
    return it == index.end() ? none() : it->second;
  }
  static const Ids& none();

  std::unordered_map<std::string, Ids> by_corr_;
  std::unordered_map<std::string, Ids> by_alloc_;
  std::unordered_map<std::string, Ids> by_owner_;
};

}  // namespace pmixflow
