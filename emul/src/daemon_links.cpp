#include "pmixflow/emul/daemon_links.hpp"

#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

constexpr int kConnectTimeoutMs = 10000;

std::string node_frame(NodeId node) {
  WireWriter w;
  w.u32(node);
  return w.take();
}

}  // namespace

DaemonListener::DaemonListener(Loop& loop, const Endpoint& where, uid_t owner, LinkEvents events)
    : loop_(loop), owner_(owner), events_(std::move(events)), listener_(loop, where, [this](UniqueFd fd) {
        accepted(std::move(fd));
      }) {}

void DaemonListener::accepted(UniqueFd fd) {
  const std::uint64_t serial = next_++;
  Conn& c = conns_[serial];
  c.link = std::make_unique<FrameLink>(
      loop_, std::move(fd), [this, serial](std::string&& f) { first_frame(serial, std::move(f)); },
      [this, serial](const std::string&) { closed(serial); });
  if (const auto uid = c.link->peer_uid(); uid && *uid != owner_) {
    c.link->close();  // not one of ours
    loop_.post([this, serial] { conns_.erase(serial); });
  }
}

void DaemonListener::first_frame(std::uint64_t serial, std::string&& frame) {
  auto it = conns_.find(serial);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  try {
    if (!c.node) {
      WireReader r(frame);
      const NodeId node = r.u32();
      r.expect_end();
      c.node = node;
      if (auto old = links_.find(node); old != links_.end()) closed(old->second);  // a restarted daemon
      links_[node] = serial;
      return;
    }
    events_.message(Address::daemon(*c.node), decode_message(frame));
  } catch (const WireError&) {
    // A peer that does not speak the flow's messages is dropped; its daemon, if it was one,
    // is then lost as any broken link is.
    c.link->close();
    closed(serial);
  }
}

void DaemonListener::closed(std::uint64_t serial) {
  auto node = conns_.extract(serial);
  if (node.empty()) return;
  const std::optional<NodeId> id = node.mapped().node;
  // The link may be the one running this callback: let it go after the callback returns.
  loop_.post([link = std::shared_ptr<FrameLink>(std::move(node.mapped().link))] {});
  if (!id) return;
  if (auto it = links_.find(*id); it != links_.end() && it->second == serial) {
    links_.erase(it);
    events_.lost(Address::daemon(*id));
  }
}

bool DaemonListener::send(NodeId node, const Message& msg) {
  auto it = links_.find(node);
  if (it == links_.end()) return false;
  auto c = conns_.find(it->second);
  return c != conns_.end() && c->second.link->send(encode_message(msg));
}

ControllerLink::ControllerLink(Loop& loop, const Endpoint& where, NodeId node, LinkEvents events)
    : events_(std::move(events)) {
  link_ = std::make_unique<FrameLink>(
      loop, connect_to(where, kConnectTimeoutMs),
      [this](std::string&& f) {
        try {
          events_.message(Address::controller(), decode_message(f));
        } catch (const WireError&) {
          link_->close();
          events_.lost(Address::controller());
        }
      },
      [this](const std::string&) { events_.lost(Address::controller()); });
  link_->send(node_frame(node));
}

}  // namespace pmixflow::emul
