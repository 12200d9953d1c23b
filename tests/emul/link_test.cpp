// The emulator's own transport, as its parties use it: endpoints read from text, frames delivered
// whole and in order however the bytes arrive (an empty one, a 5 MB one written as the peer
// drains it, a burst of small ones), a broken or hostile peer seen once as a closed link, and
// listeners over Unix sockets (private to the user, removed when done) and TCP.
#include "pmixflow/emul/link.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;
using testing_support::fail_after;
using testing_support::ScratchDir;

// ------------------------------------------------------------------------------------- Endpoint

TEST(Endpoint, ParsesAUnixSocketPath) {
  const Endpoint e = Endpoint::parse("unix:/run/pmixflow/ctl.sock");
  EXPECT_EQ(e.kind, Endpoint::Kind::Unix);
  EXPECT_EQ(e.path, "/run/pmixflow/ctl.sock");
  EXPECT_EQ(e.to_string(), "unix:/run/pmixflow/ctl.sock");
}

TEST(Endpoint, ParsesATcpHostAndPort) {
  const Endpoint e = Endpoint::parse("tcp:node-17.cluster:7020");
  EXPECT_EQ(e.kind, Endpoint::Kind::Tcp);
  EXPECT_EQ(e.host, "node-17.cluster");
  EXPECT_EQ(e.port, 7020);
  EXPECT_EQ(e.to_string(), "tcp:node-17.cluster:7020");
  EXPECT_EQ(Endpoint::parse("tcp:127.0.0.1:0").port, 0);
  EXPECT_EQ(Endpoint::parse("tcp:127.0.0.1:65535").port, 65535);
}

TEST(Endpoint, RefusesBadTextNamingIt) {
  for (const std::string bad : {"", "unix:", "/tmp/ctl.sock", "udp:host:1", "tcp:", "tcp:host", "tcp:host:", "tcp::80",
                                "tcp:host:http", "tcp:host:80x", "tcp:host:-1", "tcp:host:65536"}) {
    try {
      Endpoint::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
    }
  }
}

// ------------------------------------------------------------------------------------ FrameLink

struct Seen {
  std::vector<std::string> frames;
  std::vector<std::string> closes;
};

// Two links on one loop, joined by a socket pair.
class LinkPair : public ::testing::Test {
 protected:
  void SetUp() override {
    auto [x, y] = socket_pair();
    a_ = make_link(std::move(x), seen_a_);
    b_ = make_link(std::move(y), seen_b_);
  }

  std::unique_ptr<FrameLink> make_link(UniqueFd fd, Seen& seen) {
    return std::make_unique<FrameLink>(
        loop_, std::move(fd),
        [this, &seen](std::string&& f) {
          seen.frames.push_back(std::move(f));
          check_done();
        },
        [this, &seen](const std::string& why) {
          seen.closes.push_back(why);
          check_done();
        });
  }

  // Runs the loop until `done` holds (checked after every frame and close).
  void run_until(std::function<bool()> done, const std::string& what) {
    done_ = std::move(done);
    fail_after(loop_, what);
    loop_.run();
  }

  void check_done() {
    if (done_ && done_()) loop_.stop();
  }

  Loop loop_;  // first: the links unwatch from it when they go
  Seen seen_a_, seen_b_;
  std::unique_ptr<FrameLink> a_, b_;
  std::function<bool()> done_;
};

std::string patterned(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + i / 4099) % 251);
  return s;
}

TEST_F(LinkPair, FramesArriveWholeAndInOrderIncludingAnEmptyOne) {
  EXPECT_TRUE(a_->send("one"));
  EXPECT_TRUE(a_->send(""));
  EXPECT_TRUE(a_->send(std::string("th\0ree", 6)));
  run_until([this] { return seen_b_.frames.size() == 3; }, "three frames");
  EXPECT_EQ(seen_b_.frames, (std::vector<std::string>{"one", "", std::string("th\0ree", 6)}));
  EXPECT_TRUE(seen_b_.closes.empty());
  EXPECT_EQ(a_->bytes_sent(), 3u * 4 + 3 + 0 + 6);
}

TEST_F(LinkPair, FiveMegabyteFrameIsQueuedAndWrittenAsThePeerReads) {
  const std::string big = patterned(5u << 20);
  EXPECT_TRUE(a_->send(big));
  // The socket cannot take 5 MB at once: the rest waits in the link, and send did not block.
  EXPECT_LT(a_->bytes_sent(), big.size() + 4) << "the frame went out at once: the queue was not exercised";
  EXPECT_TRUE(a_->send("behind it"));
  run_until([this] { return seen_b_.frames.size() == 2; }, "the big frame and the one behind it");
  ASSERT_EQ(seen_b_.frames.size(), 2u);
  EXPECT_EQ(seen_b_.frames[0].size(), big.size());
  EXPECT_TRUE(seen_b_.frames[0] == big);
  EXPECT_EQ(seen_b_.frames[1], "behind it");
  EXPECT_EQ(a_->bytes_sent(), big.size() + 4 + 9 + 4);
}

TEST_F(LinkPair, BigFramesBothWaysAtOnceBothArrive) {
  const std::string big = patterned(3u << 20);
  EXPECT_TRUE(a_->send(big));
  EXPECT_TRUE(b_->send(big));
  run_until([this] { return seen_a_.frames.size() == 1 && seen_b_.frames.size() == 1; }, "a frame each way");
  EXPECT_TRUE(seen_a_.frames.at(0) == big);
  EXPECT_TRUE(seen_b_.frames.at(0) == big);
}

TEST_F(LinkPair, BurstOfSmallFramesArrivesInOrder) {
  constexpr int kFrames = 20000;
  for (int i = 0; i < kFrames; ++i) ASSERT_TRUE(a_->send("frame " + std::to_string(i)));
  run_until([this] { return seen_b_.frames.size() == kFrames; }, "every frame of the burst");
  ASSERT_EQ(seen_b_.frames.size(), std::size_t{kFrames});
  for (int i = 0; i < kFrames; ++i)
    ASSERT_EQ(seen_b_.frames[static_cast<std::size_t>(i)], "frame " + std::to_string(i));
}

// A party's events are held and go in one write: nothing is written until a send or a release,
// and then every held frame arrives, in order, before the frame sent.
TEST_F(LinkPair, HeldFramesGoInOrderWithTheNextSendAndNotBefore) {
  EXPECT_TRUE(a_->hold("event 1"));
  EXPECT_TRUE(a_->hold("event 2"));
  EXPECT_EQ(a_->bytes_sent(), 0u);
  EXPECT_EQ(a_->held_bytes(), 2u * (4 + 7));
  EXPECT_TRUE(a_->send("ready"));
  EXPECT_EQ(a_->held_bytes(), 0u);
  EXPECT_TRUE(a_->hold("event 3"));
  a_->release();
  run_until([this] { return seen_b_.frames.size() == 4; }, "the held frames and the one sent");
  EXPECT_EQ(seen_b_.frames, (std::vector<std::string>{"event 1", "event 2", "ready", "event 3"}));
  EXPECT_EQ(a_->bytes_sent(), 4u * 4 + 7 + 7 + 5 + 7);
}

TEST_F(LinkPair, HeldFramesGoWithAFlushAndNotOnceTheLinkIsClosed) {
  EXPECT_TRUE(a_->hold("last words"));
  a_->flush(1000);
  run_until([this] { return seen_b_.frames.size() == 1; }, "the held frame, flushed");
  EXPECT_EQ(seen_b_.frames, std::vector<std::string>{"last words"});
  a_->close();
  EXPECT_FALSE(a_->hold("after the end"));
}

TEST_F(LinkPair, PeerClosingCallsOnClosedOnceAfterWhatItSent) {
  EXPECT_TRUE(a_->send("goodbye"));
  a_->close();  // ours: no on_closed for the side that closes
  // Once the close is seen, the loop runs on a while longer: no second call comes.
  bool seen = false;
  run_until(
      [this, &seen] {
        if (!seen_b_.closes.empty() && !seen) {
          seen = true;
          loop_.after(50ms, [this] { loop_.stop(); });
        }
        return false;
      },
      "the close");
  EXPECT_EQ(seen_b_.frames, std::vector<std::string>{"goodbye"});
  EXPECT_FALSE(b_->open());
  EXPECT_EQ(seen_b_.closes.size(), 1u);
  EXPECT_NE(seen_b_.closes[0].find("closed by the peer"), std::string::npos) << seen_b_.closes[0];
  EXPECT_TRUE(seen_a_.closes.empty());
}

TEST_F(LinkPair, SendAfterCloseReturnsFalse) {
  a_->close();
  EXPECT_FALSE(a_->open());
  EXPECT_FALSE(a_->send("too late"));
  a_->close();  // twice: nothing more happens
  run_until([this] { return !seen_b_.closes.empty(); }, "the close");
  EXPECT_FALSE(b_->send("too late as well"));
  EXPECT_TRUE(seen_b_.frames.empty());
}

TEST_F(LinkPair, PeerUidOverASocketPairIsOurs) {
  ASSERT_TRUE(a_->peer_uid().has_value());
  EXPECT_EQ(*a_->peer_uid(), ::geteuid());
  a_->close();
  EXPECT_FALSE(a_->peer_uid().has_value());
}

// A peer writing raw bytes: what a link makes of a stream that is not its own framing.
class RawPeer : public LinkPair {
 protected:
  void SetUp() override {
    auto [x, y] = socket_pair();
    raw_ = std::move(x);
    b_ = make_link(std::move(y), seen_b_);
  }
  void write_raw(const std::string& bytes) {
    ASSERT_EQ(::send(raw_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  static std::string header(std::uint32_t n) {
    return std::string{static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                       static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  }
  UniqueFd raw_;
};

TEST_F(RawPeer, FrameSplitAcrossWritesArrivesOnceWhole) {
  const std::string frame = header(11) + "hello world";
  write_raw(frame.substr(0, 2));  // half a length
  loop_.after(5ms, [this, frame] { write_raw(frame.substr(2, 5)); });
  loop_.after(10ms, [this, frame] { write_raw(frame.substr(7) + header(0)); });
  run_until([this] { return seen_b_.frames.size() == 2; }, "the split frame and an empty one");
  EXPECT_EQ(seen_b_.frames, (std::vector<std::string>{"hello world", ""}));
}

TEST_F(RawPeer, FrameDeclaringMoreThanTheLimitClosesTheLink) {
  write_raw(header(kMaxFrame + 1));
  run_until([this] { return !seen_b_.closes.empty(); }, "the link to close");
  ASSERT_EQ(seen_b_.closes.size(), 1u);
  EXPECT_NE(seen_b_.closes[0].find(std::to_string(kMaxFrame + 1)), std::string::npos) << seen_b_.closes[0];
  EXPECT_TRUE(seen_b_.frames.empty());
  EXPECT_FALSE(b_->open());
  EXPECT_FALSE(b_->send("anything"));
  // The link let go of its end: the raw peer sees it closed.
  char byte = 0;
  EXPECT_EQ(::recv(raw_.get(), &byte, 1, 0), 0);
}

TEST(FrameLink, FlushWritesTheQueueToAPeerReadingElsewhere) {
  Loop loop;
  auto [ours, theirs] = socket_pair();
  FrameLink link(
      loop, std::move(ours), [](std::string&&) {}, [](const std::string&) {});
  const std::string big = patterned(4u << 20);
  ASSERT_TRUE(link.send(big));
  std::size_t total = 0;
  std::thread reader([&total, fd = theirs.get()] {
    char buf[65536];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) total += static_cast<std::size_t>(n);
  });
  link.flush(20000);
  EXPECT_EQ(link.bytes_sent(), big.size() + 4);
  link.close();
  ::shutdown(theirs.get(), SHUT_RDWR);  // the reader ends whatever happened
  reader.join();
  EXPECT_EQ(total, big.size() + 4);
}

// A peer that said goodbye and went, leaving what we sent it unread: our next write finds it gone,
// and its goodbye is read before the link closes (the emulation told a party that left from one
// that died by that goodbye; it was lost when a write to the party raced its exit).
TEST(FrameLink, APeerThatWentIsReadToTheEndWhenAWriteFindsItGone) {
  Loop loop;
  auto [ours, theirs] = socket_pair();
  Seen seen;
  FrameLink link(
      loop, std::move(ours), [&](std::string&& f) { seen.frames.push_back(std::move(f)); },
      [&](const std::string& why) {
        seen.closes.push_back(why);
        loop.stop();
      });
  ASSERT_TRUE(link.send("never read"));
  const std::string goodbye = std::string("\x07\0\0\0", 4) + "goodbye";
  ASSERT_EQ(::send(theirs.get(), goodbye.data(), goodbye.size(), 0), static_cast<ssize_t>(goodbye.size()));
  theirs.reset();
  EXPECT_FALSE(link.send("to a peer gone"));
  fail_after(loop, "the close");
  loop.run();
  EXPECT_EQ(seen.frames, std::vector<std::string>{"goodbye"});
  EXPECT_EQ(seen.closes.size(), 1u);
  EXPECT_FALSE(link.open());
}

TEST(FrameLink, FlushGivesUpAfterItsTimeoutWhenNobodyReads) {
  Loop loop;
  auto [ours, theirs] = socket_pair();
  FrameLink link(
      loop, std::move(ours), [](std::string&&) {}, [](const std::string&) {});
  const std::string big = patterned(4u << 20);
  ASSERT_TRUE(link.send(big));
  const auto start = SteadyClock::now();
  link.flush(100);
  const auto took = SteadyClock::now() - start;
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 10s);
  EXPECT_LT(link.bytes_sent(), big.size() + 4);
  EXPECT_TRUE(link.open());
}

// ------------------------------------------------------------------------- Listener, connect_to

// A listener whose accepted connections become links; runs until the first frame arrives there.
struct Server {
  Loop& loop;
  std::vector<std::unique_ptr<FrameLink>> links;
  std::vector<std::string> frames;
  void accept(UniqueFd fd) {
    links.push_back(std::make_unique<FrameLink>(
        loop, std::move(fd),
        [this](std::string&& f) {
          frames.push_back(std::move(f));
          loop.stop();
        },
        [](const std::string&) {}));
  }
};

TEST(Listener, UnixSocketIsPrivateWorksAndIsRemovedWithTheListener) {
  ScratchDir dir;
  Loop loop;
  Server server{loop, {}, {}};
  const Endpoint where = Endpoint::parse("unix:" + (dir / "ctl.sock"));
  auto listener = std::make_unique<Listener>(loop, where, [&](UniqueFd fd) { server.accept(std::move(fd)); });
  EXPECT_EQ(listener->endpoint().to_string(), where.to_string());
  struct stat st {};
  ASSERT_EQ(::stat(where.path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  FrameLink client(
      loop, connect_to(listener->endpoint(), 5000), [](std::string&&) {}, [](const std::string&) {});
  EXPECT_TRUE(client.send("hello over unix"));
  fail_after(loop, "the frame over the Unix socket");
  loop.run();
  EXPECT_EQ(server.frames, std::vector<std::string>{"hello over unix"});
  ASSERT_EQ(server.links.size(), 1u);
  EXPECT_EQ(server.links[0]->peer_uid(), std::optional<uid_t>(::geteuid()));

  listener.reset();
  EXPECT_NE(::stat(where.path.c_str(), &st), 0);
  EXPECT_EQ(errno, ENOENT);
}

TEST(Listener, UnixSocketDeeperThanASocketAddressHoldsWorks) {
  ScratchDir dir;
  std::string deep = dir.path();
  while (deep.size() < 150) deep += "/a-rather-long-directory-name";
  std::filesystem::create_directories(deep);
  const std::string path = deep + "/ctl.sock";
  ASSERT_GT(path.size(), sizeof(sockaddr_un{}.sun_path));
  Loop loop;
  Server server{loop, {}, {}};
  auto listener = std::make_unique<Listener>(loop, Endpoint::parse("unix:" + path),
                                             [&](UniqueFd fd) { server.accept(std::move(fd)); });
  EXPECT_EQ(listener->endpoint().path, path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << "the socket is not where it was asked for";
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  FrameLink client(
      loop, connect_to(listener->endpoint(), 5000), [](std::string&&) {}, [](const std::string&) {});
  EXPECT_TRUE(client.send("hello from deep down"));
  fail_after(loop, "the frame over the deep Unix socket");
  loop.run();
  EXPECT_EQ(server.frames, std::vector<std::string>{"hello from deep down"});
  listener.reset();
  EXPECT_NE(::stat(path.c_str(), &st), 0);
}

TEST(ConnectTo, MissingDeepSocketFailsAfterItsTimeout) {
  ScratchDir dir;
  std::string deep = dir.path();
  while (deep.size() < 150) deep += "/a-rather-long-directory-name";
  std::filesystem::create_directories(deep);
  const Endpoint nowhere = Endpoint::parse("unix:" + deep + "/nobody.sock");
  const auto start = SteadyClock::now();
  EXPECT_THROW(connect_to(nowhere, 150), std::system_error);
  EXPECT_GE(SteadyClock::now() - start, 150ms);
}

TEST(Listener, UnixSocketReplacesAStaleFile) {
  ScratchDir dir;
  Loop loop;
  const std::string path = dir / "stale.sock";
  {
    std::ofstream stale(path);  // what a run that died leaves behind
    stale << "stale";
  }
  Listener second(loop, Endpoint::parse("unix:" + path), [](UniqueFd) {});
  EXPECT_NO_THROW(connect_to(second.endpoint(), 2000));
}

TEST(Listener, TcpOnPortZeroReportsTheBoundPortAndWorks) {
  Loop loop;
  Server server{loop, {}, {}};
  Listener listener(loop, Endpoint::parse("tcp:127.0.0.1:0"), [&](UniqueFd fd) { server.accept(std::move(fd)); });
  const Endpoint bound = listener.endpoint();
  EXPECT_EQ(bound.kind, Endpoint::Kind::Tcp);
  EXPECT_EQ(bound.host, "127.0.0.1");
  EXPECT_NE(bound.port, 0);
  EXPECT_EQ(bound.to_string(), "tcp:127.0.0.1:" + std::to_string(bound.port));

  FrameLink client(
      loop, connect_to(bound, 5000), [](std::string&&) {}, [](const std::string&) {});
  EXPECT_TRUE(client.send("hello over tcp"));
  fail_after(loop, "the frame over TCP");
  loop.run();
  EXPECT_EQ(server.frames, std::vector<std::string>{"hello over tcp"});
}

TEST(Listener, PeerUidIsUnknownOverTcp) {
  // Over TCP the kernel answers SO_PEERCRED with uid (uid_t)-1 instead of failing: taken as a
  // user, it would make DaemonListener close every TCP daemon (DaemonLinks.DaemonOverTcpIsAccepted).
  Loop loop;
  Server server{loop, {}, {}};
  Listener listener(loop, Endpoint::parse("tcp:127.0.0.1:0"), [&](UniqueFd fd) { server.accept(std::move(fd)); });
  FrameLink client(
      loop, connect_to(listener.endpoint(), 5000), [](std::string&&) {}, [](const std::string&) {});
  client.send("x");
  fail_after(loop, "the frame over TCP");
  loop.run();
  ASSERT_EQ(server.links.size(), 1u);
  EXPECT_EQ(server.links[0]->peer_uid(), std::nullopt);
  EXPECT_EQ(client.peer_uid(), std::nullopt);
}

TEST(Listener, UnixSocketInAMissingDirectoryIsRefusedNamingIt) {
  ScratchDir dir;
  Loop loop;
  const std::string path = dir / "no-such-dir/ctl.sock";
  try {
    Listener listener(loop, Endpoint::parse("unix:" + path), [](UniqueFd) {});
    ADD_FAILURE() << "bound " << path;
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ConnectTo, MissingSocketFailsAfterItsTimeout) {
  ScratchDir dir;
  const Endpoint nowhere = Endpoint::parse("unix:" + (dir / "nobody.sock"));
  const auto start = SteadyClock::now();
  try {
    connect_to(nowhere, 150);
    ADD_FAILURE() << "connected to " << nowhere.to_string();
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
    EXPECT_NE(std::string(e.what()).find(nowhere.to_string()), std::string::npos) << e.what();
  }
  const auto took = SteadyClock::now() - start;
  EXPECT_GE(took, 150ms);  // it kept trying until its deadline
  EXPECT_LT(took, 10s);
}

TEST(ConnectTo, WaitsForAListenerNotYetUp) {
  ScratchDir dir;
  Loop loop;
  const Endpoint where = Endpoint::parse("unix:" + (dir / "late.sock"));
  auto connecting = std::async(std::launch::async, [&where] { return connect_to(where, 20000); });
  std::this_thread::sleep_for(50ms);  // not a bound: the connection succeeds whenever the listener comes
  Listener listener(loop, where, [](UniqueFd) {});
  const UniqueFd fd = connecting.get();
  EXPECT_TRUE(fd);
}

}  // namespace
}  // namespace pmixflow::emul
