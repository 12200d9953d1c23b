// The daemon <-> controller hop on the emulator's own transport: a daemon reports in with its
// node, messages flow both ways as the flow's messages, a link that breaks is a lost peer (once,
// and not when the controller asked for it), a restarted daemon takes its node's place, and
// only the emulation's own user gets in over a Unix socket.
#include "pmixflow/emul/daemon_links.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;
using testing_support::fail_after;
using testing_support::ScratchDir;

// What one side's LinkEvents were told.
struct Heard {
  std::vector<std::pair<Address, Message>> messages;
  std::vector<Address> lost;
  std::function<void()> after;  // run after each event: the test's stop condition

  LinkEvents events() {
    return LinkEvents{[this](Address from, Message m) {
                        messages.emplace_back(from, std::move(m));
                        if (after) after();
                      },
                      [this](Address peer) {
                        lost.push_back(peer);
                        if (after) after();
                      }};
  }
};

class DaemonLinks : public ::testing::Test {
 protected:
  void listen(const std::string& where, uid_t owner = ::geteuid()) {
    controller_ = std::make_unique<DaemonListener>(loop_, Endpoint::parse(where), owner, at_controller_.events());
  }
  std::string unix_endpoint() { return "unix:" + (dir_ / "daemons.sock"); }
  std::unique_ptr<ControllerLink> daemon(const std::string& where, NodeId node, Heard& heard) {
    return std::make_unique<ControllerLink>(loop_, Endpoint::parse(where), node, heard.events());
  }
  void run(const std::string& waiting_for) {
    fail_after(loop_, waiting_for);
    loop_.run();
  }
  void stop_when(Heard& h, std::function<bool()> done) {
    h.after = [this, done = std::move(done)] {
      if (done()) loop_.stop();
    };
  }

  ScratchDir dir_;
  Loop loop_;
  Heard at_controller_, at_daemon_;
  std::unique_ptr<DaemonListener> controller_;
};

TEST_F(DaemonLinks, DaemonReportsInAndMessagesFlowBothWays) {
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 3, at_daemon_);
  EXPECT_TRUE(d->open());
  EXPECT_TRUE(d->send(Message(DaemonReady{3})));
  // Once the controller has heard the daemon, it answers it by node.
  stop_when(at_controller_, [this] {
    EXPECT_TRUE(controller_->send(3, Message(KillProcs{"job-1", Status::ErrJobKilledByCmd})));
    return false;
  });
  stop_when(at_daemon_, [this] { return !at_daemon_.messages.empty(); });
  run("the message each way");
  ASSERT_EQ(at_controller_.messages.size(), 1u);
  EXPECT_EQ(at_controller_.messages[0].first, Address::daemon(3));
  ASSERT_TRUE(std::holds_alternative<DaemonReady>(at_controller_.messages[0].second));
  EXPECT_EQ(std::get<DaemonReady>(at_controller_.messages[0].second).node, 3u);
  ASSERT_EQ(at_daemon_.messages.size(), 1u);
  EXPECT_EQ(at_daemon_.messages[0].first, Address::controller());
  ASSERT_TRUE(std::holds_alternative<KillProcs>(at_daemon_.messages[0].second));
  EXPECT_EQ(std::get<KillProcs>(at_daemon_.messages[0].second).nspace, "job-1");
  EXPECT_EQ(controller_->connected(), 1u);
  EXPECT_TRUE(at_controller_.lost.empty());
  EXPECT_FALSE(controller_->send(4, Message(DaemonShutdown{})));  // no daemon on node 4
}

TEST_F(DaemonLinks, DaemonGoneIsLostOnce) {
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 5, at_daemon_);
  d->send(Message(DaemonReady{5}));
  bool gone = false;
  stop_when(at_controller_, [&] {
    if (!at_controller_.messages.empty() && !gone) {
      gone = true;
      d.reset();  // the daemon's process ends: its link closes
      loop_.after(100ms, [this] { loop_.stop(); });
    }
    return false;
  });
  run("the daemon to be lost");
  EXPECT_EQ(at_controller_.lost, std::vector<Address>{Address::daemon(5)});
  EXPECT_EQ(controller_->connected(), 0u);
  EXPECT_FALSE(controller_->send(5, Message(DaemonShutdown{})));
}

TEST_F(DaemonLinks, DaemonToldToExitIsNoLoss) {
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 6, at_daemon_);
  d->send(Message(DaemonReady{6}));
  stop_when(at_controller_, [&] {
    if (at_controller_.messages.size() == 1) {
      controller_->send(6, Message(DaemonShutdown{}));
      controller_->expect_close(6);
    }
    return false;
  });
  // The daemon exits when told; the controller's side then goes quiet.
  stop_when(at_daemon_, [&] {
    if (!at_daemon_.messages.empty() && d) {
      loop_.post([&d] { d.reset(); });  // not from inside its own link's callback
      loop_.after(100ms, [this] { loop_.stop(); });
    }
    return false;
  });
  run("the daemon to exit");
  EXPECT_TRUE(at_controller_.lost.empty());
  EXPECT_EQ(controller_->connected(), 0u);
}

TEST_F(DaemonLinks, ControllerGoneIsLostAtTheDaemon) {
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 2, at_daemon_);
  d->send(Message(DaemonReady{2}));
  stop_when(at_controller_, [this] {
    loop_.post([this] { controller_.reset(); });  // the controller's process ends
    return false;
  });
  stop_when(at_daemon_, [this] { return !at_daemon_.lost.empty(); });
  run("the controller to be lost");
  EXPECT_EQ(at_daemon_.lost, std::vector<Address>{Address::controller()});
  EXPECT_FALSE(d->open());
  EXPECT_FALSE(d->send(Message(DaemonReady{2})));
}

TEST_F(DaemonLinks, RestartedDaemonTakesItsNodesPlace) {
  listen(unix_endpoint());
  Heard at_old, at_new;
  auto old_daemon = daemon(unix_endpoint(), 4, at_old);
  old_daemon->send(Message(DaemonReady{4}));
  std::unique_ptr<ControllerLink> new_daemon;
  stop_when(at_controller_, [&] {
    if (at_controller_.messages.size() == 1 && !new_daemon) {
      new_daemon = daemon(unix_endpoint(), 4, at_new);
      new_daemon->send(Message(DaemonReady{4}));
    }
    if (at_controller_.messages.size() == 2) controller_->send(4, Message(DaemonShutdown{}));
    return false;
  });
  stop_when(at_new, [&] { return !at_new.messages.empty(); });
  run("the restarted daemon to be answered");
  EXPECT_EQ(controller_->connected(), 1u);
  ASSERT_EQ(at_new.messages.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<DaemonShutdown>(at_new.messages[0].second));
  EXPECT_TRUE(at_old.messages.empty());  // the answer went to the new daemon only
}

TEST_F(DaemonLinks, PeerSpeakingGarbageIsDroppedAndLost) {
  listen(unix_endpoint());
  FrameLink raw(
      loop_, connect_to(Endpoint::parse(unix_endpoint()), 5000), [](std::string&&) {}, [](const std::string&) {});
  WireWriter node;
  node.u32(7);
  raw.send(node.take());
  raw.send("\xff not a message");
  stop_when(at_controller_, [this] { return !at_controller_.lost.empty(); });
  run("the garbage-speaking daemon to be lost");
  EXPECT_TRUE(at_controller_.messages.empty());
  EXPECT_EQ(at_controller_.lost, std::vector<Address>{Address::daemon(7)});
  EXPECT_EQ(controller_->connected(), 0u);
}

TEST_F(DaemonLinks, DaemonOfAnotherUserIsRefused) {
  listen(unix_endpoint(), ::geteuid() + 1);  // the emulation's owner is someone else
  auto d = daemon(unix_endpoint(), 1, at_daemon_);
  d->send(Message(DaemonReady{1}));
  stop_when(at_daemon_, [this] { return !at_daemon_.lost.empty(); });
  run("the refused daemon to see its link close");
  EXPECT_EQ(at_daemon_.lost, std::vector<Address>{Address::controller()});
  EXPECT_TRUE(at_controller_.messages.empty());
  EXPECT_EQ(controller_->connected(), 0u);
}

TEST_F(DaemonLinks, LossIsNeverReportedFromInsideTheControllersSend) {
  // a send on a link whose peer has just gone fails with EPIPE inside FrameLink::send
  // (link.cpp, write_queued -> fail), which calls on_closed there and then; DaemonListener turns
  // that into LinkEvents::lost at once, and the party hands PeerLost to its role with
  // env_->deliver (party_process.cpp, open_links): the role is re-entered from inside its own
  // env.send(), which proto/env.hpp says never happens.
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 3, at_daemon_);
  d->send(Message(DaemonReady{3}));
  bool in_send = false, lost_in_send = false;
  at_controller_.after = [&] {
    if (!at_controller_.lost.empty()) {
      lost_in_send = lost_in_send || in_send;
      loop_.post([this] { loop_.stop(); });
      return;
    }
    d.reset();  // the daemon's process ends; the controller's loop has not seen it yet
    in_send = true;
    controller_->send(3, Message(KillProcs{"job-1", Status::ErrJobKilledByCmd}));
    in_send = false;
  };
  run("the daemon to be lost");
  EXPECT_EQ(at_controller_.lost, std::vector<Address>{Address::daemon(3)});
  EXPECT_FALSE(lost_in_send) << "lost was reported from inside DaemonListener::send";
}

TEST_F(DaemonLinks, LossIsNeverReportedFromInsideTheDaemonsSend) {
  // as above, on the daemon's side: ControllerLink::send reports the controller lost (and
  // the party then delivers PeerLost to the daemon role) from inside the send.
  listen(unix_endpoint());
  auto d = daemon(unix_endpoint(), 3, at_daemon_);
  d->send(Message(DaemonReady{3}));
  bool in_send = false, lost_in_send = false;
  at_daemon_.after = [&] {
    lost_in_send = lost_in_send || in_send;
    loop_.post([this] { loop_.stop(); });
  };
  at_controller_.after = [&] {
    loop_.post([&] {
      controller_.reset();  // the controller's process ends; the daemon's loop has not seen it yet
      in_send = true;
      d->send(Message(DaemonReady{3}));
      in_send = false;
    });
  };
  run("the controller to be lost");
  EXPECT_EQ(at_daemon_.lost, std::vector<Address>{Address::controller()});
  EXPECT_FALSE(lost_in_send) << "lost was reported from inside ControllerLink::send";
}

TEST_F(DaemonLinks, DaemonOverTcpIsAccepted) {
  // over TCP, FrameLink::peer_uid() (link.cpp) returns uid 4294967295 (the kernel answers
  // SO_PEERCRED on a TCP socket with uid -1 rather than an error), and DaemonListener::accepted
  // (daemon_links.cpp) closes every connection whose peer uid is not the owner's: no daemon can
  // ever connect over TCP, which docs/emulation.md and daemon_links.hpp say is supported.
  // DaemonListener does not say which port it bound: find a free one with a Listener first.
  std::string where;
  {
    Listener probe(loop_, Endpoint::parse("tcp:127.0.0.1:0"), [](UniqueFd) {});
    where = probe.endpoint().to_string();
  }
  controller_ = std::make_unique<DaemonListener>(loop_, Endpoint::parse(where), ::geteuid(), at_controller_.events());
  auto d = daemon(where, 8, at_daemon_);
  d->send(Message(DaemonReady{8}));
  stop_when(at_controller_, [this] { return !at_controller_.messages.empty(); });
  stop_when(at_daemon_, [this] { return !at_daemon_.lost.empty(); });  // refused: fail fast
  run("the daemon's message over TCP");
  EXPECT_TRUE(at_daemon_.lost.empty()) << "the controller closed the daemon's TCP link";
  ASSERT_EQ(at_controller_.messages.size(), 1u);
  EXPECT_EQ(at_controller_.messages[0].first, Address::daemon(8));
}

}  // namespace
}  // namespace pmixflow::emul
