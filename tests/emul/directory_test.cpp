// Who is where in an emulation: the names the log gives the parties, their PMIx identities as
// PRRTE would name them and back, tools attached by hand given an address of their own, and the
// list of servers as they come and go.
#include "pmixflow/emul/directory.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

Cluster three_nodes() { return Cluster({Node{"head", 8, false}, Node{"n01", 8, true}, Node{"n02", 8, true}}); }

class DirectoryTest : public ::testing::Test {
 protected:
  Cluster cluster_ = three_nodes();
  Directory dir_{cluster_, {"alice", "bob"}};
};

TEST_F(DirectoryTest, NamesEveryKindOfParty) {
  EXPECT_EQ(dir_.name_of(Address::controller()), "controller");
  EXPECT_EQ(dir_.name_of(Address::scheduler()), "scheduler");
  EXPECT_EQ(dir_.name_of(Address::daemon(0)), "daemon:head");
  EXPECT_EQ(dir_.name_of(Address::daemon(1)), "daemon:n01");
  EXPECT_EQ(dir_.name_of(Address::daemon(2)), "daemon:n02");
  EXPECT_EQ(dir_.name_of(Address::requestor(0)), "requestor:alice");
  EXPECT_EQ(dir_.name_of(Address::requestor(1)), "requestor:bob");
}

TEST_F(DirectoryTest, NamesAPartyItDoesNotKnowWithAQuestionMark) {
  EXPECT_EQ(dir_.name_of(Address::daemon(3)), "daemon:?");
  EXPECT_EQ(dir_.name_of(Address::requestor(2)), "requestor:?");
}

TEST_F(DirectoryTest, GivesThePartiesTheirPmixIdentities) {
  EXPECT_EQ(dir_.proc_of(Address::controller()), (Proc{"prte", 0}));
  EXPECT_EQ(dir_.proc_of(Address::daemon(1)), (Proc{"prte", 1}));
  EXPECT_EQ(dir_.proc_of(Address::daemon(2)), (Proc{"prte", 2}));
  EXPECT_EQ(dir_.proc_of(Address::scheduler()), (Proc{"scheduler", 0}));
  EXPECT_EQ(dir_.proc_of(Address::requestor(0)), (Proc{"alice", 0}));
  EXPECT_EQ(dir_.proc_of(Address::requestor(1)), (Proc{"bob", 0}));
}

TEST_F(DirectoryTest, IdentityAndAddressRoundTrip) {
  for (const Address a : {Address::controller(), Address::scheduler(), Address::daemon(1), Address::daemon(2),
                          Address::requestor(0), Address::requestor(1)}) {
    const Proc p = dir_.proc_of(a);
    EXPECT_EQ(dir_.address_of(p), std::optional<Address>(a)) << dir_.name_of(a) << " is " << to_string(p);
  }
}

TEST_F(DirectoryTest, DaemonOnTheHeadNodeHasAnIdentityOfItsOwn) {
  // with head_computes the emulation starts a daemon on the head node (node 0,
  // conductor_timeline.cpp), and proc_of(daemon 0) is prte.0, the controller's identity:
  // address_of(prte.0) then says "controller", so what that daemon's PMIx server sends is
  // taken as the controller's (directory.cpp, proc_of / address_of).
  EXPECT_NE(dir_.proc_of(Address::daemon(0)), dir_.proc_of(Address::controller()));
  EXPECT_EQ(dir_.address_of(dir_.proc_of(Address::daemon(0))), std::optional<Address>(Address::daemon(0)));
}

TEST_F(DirectoryTest, UnknownToolHasNoAddress) {
  EXPECT_EQ(dir_.address_of(Proc{"stranger", 0}), std::nullopt);
  EXPECT_EQ(dir_.address_of(Proc{"alice", 1}), std::nullopt);  // alice's rank 0 only
}

TEST_F(DirectoryTest, ToolAttachedByHandGetsARequestorAddressNamedAfterItsNamespace) {
  const Address a = dir_.tool(Proc{"pmixflow-request-4711", 0});
  EXPECT_EQ(a.kind, PartyKind::Requestor);
  EXPECT_EQ(a, Address::requestor(2));  // after the deployment's two
  EXPECT_EQ(dir_.name_of(a), "requestor:pmixflow-request-4711");
  EXPECT_EQ(dir_.proc_of(a), (Proc{"pmixflow-request-4711", 0}));
  EXPECT_EQ(dir_.address_of(Proc{"pmixflow-request-4711", 0}), std::optional<Address>(a));
}

TEST_F(DirectoryTest, ToolSeenAgainKeepsItsAddress) {
  const Address first = dir_.tool(Proc{"script", 0});
  const Address other = dir_.tool(Proc{"script", 2});
  EXPECT_EQ(dir_.tool(Proc{"script", 0}), first);
  EXPECT_EQ(dir_.tool(Proc{"script", 2}), other);
  EXPECT_NE(first, other);
  EXPECT_EQ(dir_.name_of(first), "requestor:script");
  EXPECT_EQ(dir_.name_of(other), "requestor:script.2");
  // A deployment's requestor, seen as a tool, is the requestor it already is.
  EXPECT_EQ(dir_.tool(Proc{"bob", 0}), Address::requestor(1));
  EXPECT_EQ(dir_.name_of(Address::requestor(1)), "requestor:bob");
}

TEST_F(DirectoryTest, ServersAreSetReplacedAndDropped) {
  EXPECT_TRUE(dir_.servers().empty());
  EXPECT_EQ(dir_.server(Address::controller()), nullptr);
  const ServerEntry n02{Address::daemon(2), Proc{"prte", 2}, "uri-n02"};
  const ServerEntry controller{Address::controller(), Proc{"prte", 0}, "uri-controller"};
  dir_.set_server(n02);
  dir_.set_server(controller);
  ASSERT_NE(dir_.server(Address::daemon(2)), nullptr);
  EXPECT_EQ(*dir_.server(Address::daemon(2)), n02);
  EXPECT_EQ(dir_.servers().size(), 2u);

  // A server that comes back (a restarted daemon) replaces its old entry.
  const ServerEntry n02_again{Address::daemon(2), Proc{"prte", 2}, "uri-n02-restarted"};
  dir_.set_server(n02_again);
  EXPECT_EQ(dir_.servers().size(), 2u);
  EXPECT_EQ(dir_.server(Address::daemon(2))->uri, "uri-n02-restarted");

  dir_.drop_server(Address::daemon(2));
  EXPECT_EQ(dir_.server(Address::daemon(2)), nullptr);
  EXPECT_EQ(dir_.servers(), std::vector<ServerEntry>{controller});
  dir_.drop_server(Address::daemon(2));  // again: nothing happens
  dir_.drop_server(Address::scheduler());
  EXPECT_EQ(dir_.servers(), std::vector<ServerEntry>{controller});
}

}  // namespace
}  // namespace pmixflow::emul
