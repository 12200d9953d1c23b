// The daemon <-> controller hop, on the emulator's own transport (link.hpp), as PRRTE carries
// it on its own (the SCHED/SCHED_RESP tags and the daemons' launch and control messages): the
// controller listens, each daemon connects and says which node it is in its first frame, then
// every frame is one message (proto/wire.hpp). Only processes of the emulation's own user may
// connect (the kernel's word on a Unix socket; over TCP, the private network between hosts).
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "pmixflow/emul/link.hpp"
#include "pmixflow/proto/messages.hpp"
#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {

// What a link hands its party: a message from `from`, and `from` gone (its link broke).
struct LinkEvents {
  std::function<void(Address from, Message msg)> message;
  std::function<void(Address peer)> lost;
};

// The controller's side: one link per daemon.
class DaemonListener {
 public:
  DaemonListener(Loop& loop, const Endpoint& where, uid_t owner, LinkEvents events);
  bool send(NodeId node, const Message& msg);
  // The controller told the daemon to exit: its link closing is no loss.
  void expect_close(NodeId node) { links_.erase(node); }
  std::size_t connected() const { return links_.size(); }

 private:
  void accepted(UniqueFd fd);
  void first_frame(std::uint64_t serial, std::string&& frame);
  void closed(std::uint64_t serial);

  Loop& loop_;
  uid_t owner_;
  LinkEvents events_;
  struct Conn {
    std::unique_ptr<FrameLink> link;
    std::optional<NodeId> node;  // once it said
  };
  std::map<std::uint64_t, Conn> conns_;
  std::map<NodeId, std::uint64_t> links_;  // node -> its connection
  std::uint64_t next_ = 1;
  Listener listener_;  // last: it accepts into the members above
};

// A daemon's side: its one link to the controller.
class ControllerLink {
 public:
  // Connects (blocking up to a few seconds) and says which node this is. Throws
  // std::system_error when the controller cannot be reached.
  ControllerLink(Loop& loop, const Endpoint& where, NodeId node, LinkEvents events);
  bool send(const Message& msg) { return link_->open() && link_->send(encode_message(msg)); }
  bool open() const { return link_->open(); }

 private:
  LinkEvents events_;
  std::unique_ptr<FrameLink> link_;
};

}  // namespace pmixflow::emul
