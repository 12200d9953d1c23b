// The emulator's Env as the emulation sees a party through it: a message the party is handed
// makes it busy before its role runs, so a run never ends while a party is still at work on
// something it received (a daemon forking a job's processes says nothing until it is done).
#include "pmixflow/emul/emul_env.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "emul_test_support.hpp"
#include "pmixflow/emul/directory.hpp"

namespace pmixflow::emul {
namespace {

// What the party told the emulation, in order.
class RecordingUplink final : public Uplink {
 public:
  void event(std::string encoded) override { said.push_back("event " + encoded.substr(0, 40)); }
  void start_daemon(NodeId) override { said.push_back("start_daemon"); }
  void working() override { said.push_back("working"); }
  std::vector<std::string> said;
};

class NoTransport final : public Transport {
 public:
  bool carry(Address, Message&) override { return true; }
};

// A role that notes, when it is handed a message, what the emulation had been told by then.
class NotingRole final : public Role {
 public:
  explicit NotingRole(const RecordingUplink& uplink) : uplink_(uplink) {}
  void handle(Address, Message&&) override { told_before_handling.push_back(uplink_.said); }
  std::vector<std::vector<std::string>> told_before_handling;

 private:
  const RecordingUplink& uplink_;
};

class EmulEnvTest : public ::testing::Test {
 protected:
  Cluster cluster_{{Node{"head", 8, false}, Node{"n01", 8, true}}};
  Directory directory_{cluster_, {"alice"}};
  Loop loop_;
  RunClock clock_{std::chrono::steady_clock::now(), 1.0};
  NoTransport transport_;
  RecordingUplink uplink_;
  EmulEnv env_{loop_, clock_, Address{PartyKind::Daemon, 1}, directory_, transport_, uplink_, log::KindSet{}};
  NotingRole role_{uplink_};
};

TEST_F(EmulEnvTest, AMessageMakesThePartyBusyBeforeItsRoleHandlesIt) {
  env_.set_role(&role_);
  env_.start();
  env_.deliver(Address{PartyKind::Controller, 0}, DaemonShutdown{});
  ASSERT_EQ(role_.told_before_handling.size(), 1u);
  const auto& told = role_.told_before_handling.front();
  ASSERT_FALSE(told.empty()) << "the role ran before the emulation heard the party was at work";
  EXPECT_EQ(told.back(), "working");
}

TEST_F(EmulEnvTest, AMessageHeldUntilTheRoleStartsMakesThePartyBusyWhenItIsHandled) {
  env_.set_role(&role_);
  env_.deliver(Address{PartyKind::Controller, 0}, DaemonShutdown{});
  EXPECT_TRUE(uplink_.said.empty()) << "nothing is handled before the role starts";
  env_.start();
  ASSERT_EQ(role_.told_before_handling.size(), 1u);
  EXPECT_EQ(role_.told_before_handling.front().back(), "working");
}

}  // namespace
}  // namespace pmixflow::emul
