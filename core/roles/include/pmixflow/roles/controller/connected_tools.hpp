#pragma once

#include <map>
#include <optional>
#include <set>

#include "pmixflow/proto/messages.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// The tools connected to the controller itself, by connection and by the process their calls
// name: a DVM change's event goes to one process, found without scanning every connection.
class ConnectedTools {
 public:
  // A connection's calls name this process (the latest call's name wins).
  void note(Address connection, const Proc& proc);
  // The connection broke: the process it carried, if any.
  std::optional<Proc> forget(Address connection);
  const std::set<Address>* connections_of(const Proc& proc) const;

 private:
  void unlink(Address connection, const Proc& proc);

  std::map<Address, Proc> by_connection_;
  std::map<Proc, std::set<Address>> by_proc_;
};

}  // namespace pmixflow
