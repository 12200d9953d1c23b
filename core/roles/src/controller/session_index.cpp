#include "pmixflow/roles/controller/session_index.hpp"

namespace pmixflow {
namespace {

template <class Key>
void erase_from(std::unordered_map<Key, SessionIndex::Ids>& index, const Key& key, std::uint32_t id) {
  const auto it = index.find(key);
  if (it == index.end()) return;
  it->second.erase(id);
  if (it->second.empty()) index.erase(it);
}

}  // namespace

void SessionIndex::add(const SessionKeys& k) {
  if (!k.corr.empty()) by_corr_[k.corr].insert(k.id);
  if (!k.alloc_id.empty()) by_alloc_[k.alloc_id].insert(k.id);
  if (!k.owner_nspace.empty()) by_owner_[k.owner_nspace].insert(k.id);
}

void SessionIndex::remove(const SessionKeys& k) {
  erase_from(by_corr_, k.corr, k.id);
  erase_from(by_alloc_, k.alloc_id, k.id);
  erase_from(by_owner_, k.owner_nspace, k.id);
}

const SessionIndex::Ids& SessionIndex::none() {
  static const Ids empty;
  return empty;
}

}  // namespace pmixflow
