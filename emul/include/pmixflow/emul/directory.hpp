// Who is where in one emulation: each party's address, the name the event log gives it, and,
// for the parties that are PMIx servers, their PMIx identity and URI. The emulation keeps the
// authoritative copy and sends every party the entries as servers come and go; each party
// adds the tools that attach to it by hand (a `pmixflow request`, a Python script), which the
// deployment does not know.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/model/cluster.hpp"
#include "pmixflow/proto/messages.hpp"

namespace pmixflow::emul {

// The PMIx identities of the parties, as PRRTE names them: the DVM is namespace "prte", the
// controller (the HNP) its rank 0 and each daemon the rank of its node; the scheduler attaches
// as a tool of its own namespace.
inline constexpr std::string_view kDvmNspace = "prte";
inline constexpr std::string_view kSchedulerNspace = "scheduler";

struct ServerEntry {
  Address address;
  Proc proc;        // its PMIx identity
  std::string uri;  // where a tool attaches (PMIX_SERVER_URI)
  bool operator==(const ServerEntry&) const = default;
};

class Directory {
 public:
  // Names from the machine and the deployment's requestors (requestor i is requestor:NAME).
  Directory(const Cluster& cluster, std::vector<std::string> requestor_names);

  std::string_view name_of(Address a) const;
  Proc proc_of(Address a) const;  // what a party's PMIx identity is (requestors: their namespace, rank 0)

  // The tool `proc` attached by hand: a requestor address of its own, named after its namespace.
  Address tool(const Proc& proc);
  // The address of a known PMIx identity: a party's, or a tool's already seen.
  std::optional<Address> address_of(const Proc& proc) const;

  void set_server(const ServerEntry& entry);
  void drop_server(Address a);
  const ServerEntry* server(Address a) const;
  std::vector<ServerEntry> servers() const;

 private:
  std::vector<std::string> daemon_names_;     // "daemon:NODE", by node id
  std::vector<std::string> requestor_names_;  // "requestor:NAME", by index
  std::map<Proc, std::uint32_t> tools_;       // requestor index of each tool seen
  std::map<Address, ServerEntry> servers_;
};

}  // namespace pmixflow::emul
