#include "pmixflow/roles/controller/connected_tools.hpp"

namespace pmixflow {

void ConnectedTools::note(Address connection, const Proc& proc) {
  auto [it, added] = by_connection_.try_emplace(connection, proc);
  if (!added) {
    if (it->second == proc) return;
    unlink(connection, it->second);
    it->second = proc;
  }
  by_proc_[proc].insert(connection);
}

std::optional<Proc> ConnectedTools::forget(Address connection) {
  auto node = by_connection_.extract(connection);
  if (node.empty()) return std::nullopt;
  unlink(connection, node.mapped());
  return std::move(node.mapped());
}

const std::set<Address>* ConnectedTools::connections_of(const Proc& proc) const {
  auto it = by_proc_.find(proc);
  return it == by_proc_.end() ? nullptr : &it->second;
}

void ConnectedTools::unlink(Address connection, const Proc& proc) {
  auto it = by_proc_.find(proc);
  if (it == by_proc_.end()) return;
  it->second.erase(connection);
  if (it->second.empty()) by_proc_.erase(it);
}

}  // namespace pmixflow
