#include "pmixflow/emul/directory.hpp"

namespace pmixflow::emul {

Directory::Directory(const Cluster& cluster, std::vector<std::string> requestor_names) {
  for (const auto& node : cluster.nodes()) daemon_names_.push_back("daemon:" + node.name);
  for (auto& n : requestor_names) requestor_names_.push_back("requestor:" + n);
  for (std::uint32_t i = 0; i < requestor_names.size(); ++i) tools_.emplace(Proc{requestor_names[i], 0}, i);
}

std::string_view Directory::name_of(Address a) const {
  switch (a.kind) {
    case PartyKind::Controller: return "controller";
    case PartyKind::Scheduler: return "scheduler";
    case PartyKind::Daemon: return a.index < daemon_names_.size() ? std::string_view(daemon_names_[a.index]) : "daemon:?";
    case PartyKind::Requestor:
      return a.index < requestor_names_.size() ? std::string_view(requestor_names_[a.index]) : "requestor:?";
  }
  return "?";
}

Proc Directory::proc_of(Address a) const {
  switch (a.kind) {
    case PartyKind::Controller: return Proc{std::string(kDvmNspace), 0};
    case PartyKind::Scheduler: return Proc{std::string(kSchedulerNspace), 0};
    // The head node's daemon (when it runs jobs) cannot be rank 0, the controller's: it takes
    // the rank after the last node's.
    case PartyKind::Daemon:
      return Proc{std::string(kDvmNspace),
                  a.index == Cluster::kHead ? static_cast<std::uint32_t>(daemon_names_.size()) : a.index};
    case PartyKind::Requestor:
      for (const auto& [proc, index] : tools_)
        if (index == a.index) return proc;
  }
  return Proc{};
}

Address Directory::tool(const Proc& proc) {
  if (auto known = address_of(proc)) return *known;
  const auto index = static_cast<std::uint32_t>(requestor_names_.size());
  requestor_names_.push_back("requestor:" + proc.nspace + (proc.rank ? "." + std::to_string(proc.rank) : ""));
  tools_.emplace(proc, index);
  return Address::requestor(index);
}

std::optional<Address> Directory::address_of(const Proc& proc) const {
  if (proc.nspace == kDvmNspace) {
    if (proc.rank == 0) return Address::controller();
    if (proc.rank == daemon_names_.size()) return Address::daemon(Cluster::kHead);
    if (proc.rank < daemon_names_.size()) return Address::daemon(proc.rank);
    return std::nullopt;
  }
  if (proc.nspace == kSchedulerNspace) return Address::scheduler();
  const auto it = tools_.find(proc);
  if (it == tools_.end()) return std::nullopt;
  return Address::requestor(it->second);
}

void Directory::set_server(const ServerEntry& entry) { servers_[entry.address] = entry; }
void Directory::drop_server(Address a) { servers_.erase(a); }

const ServerEntry* Directory::server(Address a) const {
  const auto it = servers_.find(a);
  return it == servers_.end() ? nullptr : &it->second;
}

std::vector<ServerEntry> Directory::servers() const {
  std::vector<ServerEntry> out;
  for (const auto& [a, e] : servers_) out.push_back(e);
  return out;
}

}  // namespace pmixflow::emul
