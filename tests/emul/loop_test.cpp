// The emulator's event loop, as a party relies on it: timers in time order (equal times in the
// order armed), cancelled timers silent, work posted from other threads run on the loop's own
// thread in order, handlers free to unwatch descriptors, stop() from anywhere, a hook after each
// round, and a writability callback that runs exactly while it is set.
#include "pmixflow/emul/loop.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "emul_test_support.hpp"
#include "pmixflow/emul/link.hpp"

namespace pmixflow::emul {
namespace {

using namespace std::chrono_literals;
using testing_support::fail_after;

// Makes `fd` readable: one byte from its peer.
void poke(const UniqueFd& peer) {
  const char byte = 'x';
  ASSERT_EQ(::send(peer.get(), &byte, 1, MSG_NOSIGNAL), 1);
}

TEST(Loop, TimersFireInTimeOrderAndEqualTimesInTheOrderArmed) {
  Loop loop;
  fail_after(loop, "the last timer");
  std::vector<std::string> fired;
  const auto base = SteadyClock::now() + 20ms;
  loop.at(base + 30ms, [&] {
    fired.push_back("late");
    loop.stop();
  });
  loop.at(base, [&] { fired.push_back("first"); });
  loop.at(base + 10ms, [&] { fired.push_back("middle"); });
  loop.at(base, [&] { fired.push_back("second"); });
  loop.at(base, [&] { fired.push_back("third"); });
  loop.run();
  EXPECT_EQ(fired, (std::vector<std::string>{"first", "second", "third", "middle", "late"}));
}

TEST(Loop, TimersArmedInThePastFireAtOnceInTheOrderArmed) {
  Loop loop;
  fail_after(loop, "the overdue timers");
  std::vector<int> fired;
  const auto past = SteadyClock::now() - 1s;
  loop.at(past + 2ms, [&] { fired.push_back(2); });
  loop.at(past, [&] { fired.push_back(1); });
  loop.after(0ms, [&] {
    fired.push_back(3);
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(fired, (std::vector<int>{1, 2, 3}));
}

TEST(Loop, CancelledTimerNeverFires) {
  Loop loop;
  fail_after(loop, "the timer after the cancelled one");
  std::vector<std::string> fired;
  const auto t = SteadyClock::now() + 10ms;
  loop.at(t, [&] { fired.push_back("kept"); });
  const LoopTimer cancelled = loop.at(t, [&] { fired.push_back("cancelled"); });
  loop.at(t + 20ms, [&] {
    fired.push_back("last");
    loop.stop();
  });
  const std::size_t armed = loop.timers_armed();
  loop.cancel(cancelled);
  EXPECT_EQ(loop.timers_armed(), armed - 1);
  loop.cancel(cancelled);  // twice: nothing more happens
  EXPECT_EQ(loop.timers_armed(), armed - 1);
  loop.run();
  EXPECT_EQ(fired, (std::vector<std::string>{"kept", "last"}));
}

TEST(Loop, TimerCancelledByAnEarlierTimerOfTheSameRoundStaysSilent) {
  Loop loop;
  fail_after(loop, "the last timer");
  std::vector<std::string> fired;
  const auto t = SteadyClock::now() + 10ms;
  LoopTimer victim = 0;
  loop.at(t, [&] {
    fired.push_back("canceller");
    loop.cancel(victim);
  });
  victim = loop.at(t, [&] { fired.push_back("victim"); });
  loop.at(t + 20ms, [&] {
    fired.push_back("last");
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(fired, (std::vector<std::string>{"canceller", "last"}));
}

TEST(Loop, PostFromAnotherThreadRunsOnTheLoopThreadInOrder) {
  Loop loop;
  fail_after(loop, "every posted function");
  constexpr int kPosts = 2000;
  std::vector<int> ran;
  std::atomic<int> off_thread{0};
  const auto loop_thread = std::this_thread::get_id();
  loop.post([&] { ran.push_back(-1); });  // before run(): runs once it starts
  std::thread poster([&] {
    for (int i = 0; i < kPosts; ++i)
      loop.post([&, i] {
        if (std::this_thread::get_id() != loop_thread) ++off_thread;
        ran.push_back(i);
        if (i == kPosts - 1) loop.stop();
      });
  });
  loop.run();
  poster.join();
  EXPECT_EQ(off_thread.load(), 0);
  ASSERT_EQ(ran.size(), std::size_t{kPosts} + 1);
  for (int i = -1; i < kPosts; ++i) EXPECT_EQ(ran[static_cast<std::size_t>(i + 1)], i);
}

TEST(Loop, HandlerMayUnwatchItselfAndAnother) {
  Loop loop;
  auto [a, a_peer] = socket_pair();
  auto [b, b_peer] = socket_pair();
  poke(a_peer);
  poke(b_peer);
  // Both stay readable (nobody reads them): a watch left in place would run again at once.
  int calls = 0;
  WatchId wa = 0, wb = 0;
  const std::string owned(200, 'k');  // state of the running handler: ASan sees it freed too soon
  auto unwatch_both = [&, owned] {
    ++calls;
    loop.unwatch(wa);
    loop.unwatch(wb);
    EXPECT_EQ(owned.size(), 200u);
  };
  wa = loop.watch(a.get(), unwatch_both);
  wb = loop.watch(b.get(), unwatch_both);
  // A round with both ready runs one handler, which unwatches both; then the loop stays quiet.
  loop.after(100ms, [&] { loop.stop(); });
  fail_after(loop, "the loop to stop");
  loop.run();
  EXPECT_EQ(calls, 1);
}

TEST(Loop, UnwatchedDescriptorIsNoLongerReported) {
  Loop loop;
  fail_after(loop, "the second descriptor");
  auto [a, a_peer] = socket_pair();
  auto [b, b_peer] = socket_pair();
  int a_calls = 0;
  const WatchId wa = loop.watch(a.get(), [&] { ++a_calls; });
  loop.watch(b.get(), [&] { loop.stop(); });
  loop.unwatch(wa);
  loop.unwatch(wa);  // twice: nothing more happens
  poke(a_peer);
  poke(b_peer);
  loop.run();
  EXPECT_EQ(a_calls, 0);
}

TEST(Loop, PeerHangingUpMakesTheDescriptorReadable) {
  Loop loop;
  fail_after(loop, "the hang-up");
  auto [a, a_peer] = socket_pair();
  bool seen = false;
  const WatchId w = loop.watch(a.get(), [&] {
    seen = true;
    loop.unwatch(w);
    loop.stop();
  });
  a_peer.reset();
  loop.run();
  EXPECT_TRUE(seen);
}

TEST(Loop, StopFromAnotherThreadEndsRun) {
  Loop loop;
  fail_after(loop, "stop() from the other thread");
  std::atomic<bool> running{false};
  loop.post([&] { running = true; });
  std::thread stopper([&] {
    const auto give_up = SteadyClock::now() + testing_support::kDeadline;
    while (!running && SteadyClock::now() < give_up) std::this_thread::sleep_for(1ms);
    loop.stop();
  });
  loop.run();  // returns: the test would hang (or time out) otherwise
  stopper.join();
  EXPECT_TRUE(running);
  EXPECT_TRUE(loop.stopping());
}

TEST(Loop, StopBeforeRunMakesRunReturnAtOnce) {
  Loop loop;
  bool ran = false;
  loop.post([&] { ran = true; });
  loop.stop();
  EXPECT_TRUE(loop.stopping());
  loop.run();
  EXPECT_FALSE(ran);
}

TEST(Loop, AfterEachRoundRunsAfterWhatTheRoundHandled) {
  Loop loop;
  fail_after(loop, "a round after the post");
  bool posted_ran = false;
  int rounds = 0, rounds_after_post = 0;
  loop.after_each_round([&] {
    ++rounds;
    if (posted_ran) {
      ++rounds_after_post;
      loop.stop();
    }
  });
  loop.post([&] { posted_ran = true; });
  loop.run();
  EXPECT_TRUE(posted_ran);
  EXPECT_GE(rounds, 1);
  EXPECT_EQ(rounds_after_post, 1);  // the round that ran the post, and run() ended there
}

TEST(Loop, AfterEachRoundRunsAfterATimerRound) {
  Loop loop;
  fail_after(loop, "a round after the timer");
  bool timer_ran = false;
  bool seen_after_timer = false;
  loop.after_each_round([&] {
    if (timer_ran && !seen_after_timer) {
      seen_after_timer = true;
      loop.stop();
    }
  });
  loop.after(5ms, [&] { timer_ran = true; });
  loop.run();
  EXPECT_TRUE(seen_after_timer);
}

TEST(Loop, OnWritableFiresWhileSetAndStopsWhenCleared) {
  Loop loop;
  fail_after(loop, "the descriptor to turn readable");
  auto [ours, peer] = socket_pair();
  int writable_calls = 0;
  bool readable_seen = false;
  WatchId w = 0;
  w = loop.watch(ours.get(), [&] {
    readable_seen = true;
    loop.stop();
  });
  loop.on_writable(w, [&] {
    // An empty socket can always take output: this runs round after round while set.
    if (++writable_calls == 5) {
      loop.on_writable(w, nullptr);
      poke(peer);  // the next thing the loop reports is input, not writability
    }
  });
  loop.run();
  EXPECT_EQ(writable_calls, 5);
  EXPECT_TRUE(readable_seen);
}

TEST(Loop, OnWritableForAnUnknownWatchIsIgnored) {
  Loop loop;
  fail_after(loop, "the posted stop");
  bool called = false;
  loop.on_writable(12345, [&] { called = true; });
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

TEST(Loop, ExceptionFromAHandlerPropagatesOutOfRun) {
  Loop loop;
  fail_after(loop, "the throwing timer");
  loop.after(1ms, [] { throw std::runtime_error("handler failed"); });
  EXPECT_THROW(
      {
        try {
          loop.run();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "handler failed");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace pmixflow::emul
