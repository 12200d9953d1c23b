// What a restarted scheduler process takes back (emul/src/scheduler_memory.cpp): every field of
// every allocation its earlier life granted survives the trip to disk and back, a file it did not
// write is refused rather than half read, and the file is replaced whole and is the user's alone.
#include "pmixflow/emul/scheduler_memory.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "emul_test_support.hpp"
#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

using testing_support::ScratchDir;

// A preemptible grant with its queued request kept for a requeue, and a plain one.
SchedulerMemory two_grants() {
  SchedulerMemory m;
  m.next_key = 42;
  m.next_session = 7;
  Live preemptible;
  preemptible.alloc_id = "alloc-3";
  preemptible.session_id = 3;
  preemptible.owner = Principal{Proc{"alice", 0}, 1001, 100};
  preemptible.corr = "alice#1";
  preemptible.slots = {SlotRun{0, 0, 8}, SlotRun{2, 4, 4}};
  preemptible.view = RunningAllocation{5, 12, 10.5, 130.5, 2, true, false};
  preemptible.granted_at = 10.25;
  preemptible.instantiated = true;
  QueueEntry q;
  q.view = QueuedRequest{5, 9.75, 12, 0, 120, 2, true};
  q.pending.origin = Origin{Address::daemon(1), 17, "alice#1"};
  q.pending.requestor = preemptible.owner;
  q.pending.req_id = "r-1";
  q.pending.need.cpus = 12;
  q.pending.need.named = {0, 2};
  q.pending.time_limit = 120;
  q.pending.apps_and_job.add("pmix.ssn.app", std::string("sleep 30"));
  q.pending.inheritance = 3;
  q.pending.passed_on.add("pmix.ssn.sep", true);
  q.pending.answered = true;
  preemptible.requeue = q;
  Live plain;
  plain.alloc_id = "alloc-4";
  plain.session_id = 4;
  plain.owner = Principal{Proc{"bob", 0}, std::nullopt, std::nullopt};
  plain.view = RunningAllocation{6, 8, 11, 0, 0, false, true};
  m.live = {preemptible, plain};
  return m;
}

TEST(SchedulerMemory, EveryFieldComesBack) {
  const SchedulerMemory m = two_grants();
  const std::string bytes = encode_memory(m);
  const SchedulerMemory back = decode_memory(bytes);
  EXPECT_EQ(encode_memory(back), bytes);
  EXPECT_EQ(back.next_key, 42u);
  EXPECT_EQ(back.next_session, 7u);
  ASSERT_EQ(back.live.size(), 2u);
  const Live& a = back.live[0];
  EXPECT_EQ(a.alloc_id, "alloc-3");
  EXPECT_EQ(a.owner, m.live[0].owner);
  EXPECT_EQ(a.slots, m.live[0].slots);
  EXPECT_DOUBLE_EQ(a.view.expected_end, 130.5);
  EXPECT_TRUE(a.view.preemptible);
  EXPECT_TRUE(a.instantiated);
  ASSERT_TRUE(a.requeue.has_value());
  EXPECT_EQ(a.requeue->pending.origin.address, Address::daemon(1));
  EXPECT_EQ(a.requeue->pending.origin.corr, "alice#1");
  EXPECT_EQ(a.requeue->pending.need.named, (std::vector<NodeId>{0, 2}));
  EXPECT_EQ(a.requeue->pending.inheritance, 3u);
  EXPECT_EQ(a.requeue->pending.apps_and_job, m.live[0].requeue->pending.apps_and_job);
  EXPECT_EQ(a.requeue->pending.passed_on, m.live[0].requeue->pending.passed_on);
  EXPECT_TRUE(a.requeue->pending.answered);
  const Live& b = back.live[1];
  EXPECT_FALSE(b.owner.uid.has_value()) << "an unknown uid stays unknown, not 0 (root)";
  EXPECT_FALSE(b.requeue.has_value());
  EXPECT_TRUE(b.view.ending);
}

TEST(SchedulerMemory, BytesItDidNotWriteAreRefused) {
  const std::string bytes = encode_memory(two_grants());
  EXPECT_THROW(decode_memory(bytes.substr(0, bytes.size() / 2)), WireError);
  EXPECT_THROW(decode_memory(bytes + "x"), WireError);
  EXPECT_THROW(decode_memory(""), WireError);
}

TEST(SchedulerMemory, TheFileIsReplacedWholeAndIsTheUsersAlone) {
  ScratchDir dir;
  const std::string path = dir / "scheduler.memory";
  EXPECT_FALSE(load_memory(path).has_value());
  save_memory(path, "first life");
  save_memory(path, encode_memory(two_grants()));
  ASSERT_TRUE(load_memory(path).has_value());
  EXPECT_EQ(*load_memory(path), encode_memory(two_grants()));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(path + ".new")) << "the file written beside it is renamed over it";
}

}  // namespace
}  // namespace pmixflow::emul
