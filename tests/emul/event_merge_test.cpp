// The parties' events merged into the one log: held until the watermark passes them, then
// written in time order (equal times as they arrived); one that comes too late is written
// anyway, where it arrives, and counted; nothing is dropped.
#include "../../emul/src/event_merge.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmixflow/log/events.hpp"

namespace pmixflow::emul {
namespace {

// What the log was given, copied out of the views it was handed.
struct Written {
  double t;
  std::string who;
  std::string node;
  bool operator==(const Written&) const = default;
};

void PrintTo(const Written& w, std::ostream* os) { *os << "{" << w.t << ", " << w.who << ", " << w.node << "}"; }

class RecordingSink final : public log::EventSink {
 public:
  void begin(const log::LogHeader&) override {}
  void event(const log::EventView& e) override {
    got.push_back(Written{e.t, std::string(e.who), std::string(e.str(log::Field::node).value_or(""))});
  }
  void end(const log::EventView&) override {}
  bool records_log() const override { return true; }  // stands for the log file: its events are counted
  std::vector<Written> got;
};

// An event as a party sends it: built, encoded, and decoded on the emulation's side.
log::DecodedEvent party_event(double t, const std::string& who, const std::string& node) {
  log::EventBuilder b(log::EventKind::NodeFail);
  fill(ev::NodeFail{.node = node}, b);
  return log::decode_event(log::encode_event(b.view(t, who)));
}

class EventMergeTest : public ::testing::Test {
 protected:
  EventMergeTest() {
    log_.attach(sink_);
    log_.begin();
  }
  void add(double t, const std::string& who, const std::string& node = "n01") { merge_.add(party_event(t, who, node)); }
  const std::vector<Written>& got() const { return sink_.got; }

  RecordingSink sink_;
  log::EventLog log_{log::LogHeader{}};
  EventMerge merge_{log_};
};

TEST_F(EventMergeTest, EventsAreHeldUntilTheWatermarkPassesThem) {
  add(2.0, "daemon:n02");
  add(1.0, "daemon:n01");
  EXPECT_TRUE(got().empty());
  EXPECT_EQ(merge_.held(), 2u);
  merge_.flush_before(1.0);  // nothing stamped before 1.0
  EXPECT_TRUE(got().empty());
  merge_.flush_before(1.5);
  EXPECT_EQ(got(), (std::vector<Written>{{1.0, "daemon:n01", "n01"}}));
  EXPECT_EQ(merge_.held(), 1u);
}

TEST_F(EventMergeTest, OldestNamesTheEarliestEventHeld) {
  add(3.0, "daemon:n02");
  add(1.5, "daemon:n01");
  add(2.0, "scheduler");
  EXPECT_EQ(merge_.oldest(), 1.5);
  merge_.flush_before(1.75);
  EXPECT_EQ(merge_.oldest(), 2.0);
}

TEST_F(EventMergeTest, EventsAddedOutOfOrderAreWrittenInTimeOrder) {
  add(3.0, "controller", "c");
  add(1.0, "daemon:n01", "a");
  add(2.5, "scheduler", "b2");
  add(2.0, "daemon:n02", "b1");
  add(9.0, "controller", "later");
  merge_.flush_before(5.0);
  EXPECT_EQ(
      got(),
      (std::vector<Written>{
          {1.0, "daemon:n01", "a"}, {2.0, "daemon:n02", "b1"}, {2.5, "scheduler", "b2"}, {3.0, "controller", "c"}}));
  EXPECT_EQ(merge_.held(), 1u);
  EXPECT_EQ(merge_.written(), 4u);
  EXPECT_EQ(merge_.last_time(), 3.0);
  EXPECT_EQ(merge_.late(), 0u);
  EXPECT_EQ(log_.events(), 4u);
}

TEST_F(EventMergeTest, EqualTimesKeepTheirArrivalOrder) {
  add(1.0, "first");
  add(0.5, "earlier");
  add(1.0, "second");
  add(1.0, "third");
  add(0.5, "earlier too");
  merge_.flush_all();
  std::vector<std::string> order;
  for (const auto& w : got()) order.push_back(w.who);
  EXPECT_EQ(order, (std::vector<std::string>{"earlier", "earlier too", "first", "second", "third"}));
}

TEST_F(EventMergeTest, LateEventIsWrittenAnywayAndCounted) {
  add(5.0, "controller", "on time");
  merge_.flush_before(6.0);
  add(4.0, "daemon:n03", "late");  // stamped before what is already written
  merge_.flush_before(6.0);
  EXPECT_EQ(got(), (std::vector<Written>{{5.0, "controller", "on time"}, {4.0, "daemon:n03", "late"}}));
  EXPECT_EQ(merge_.late(), 1u);
  EXPECT_EQ(merge_.written(), 2u);
  EXPECT_EQ(merge_.last_time(), 5.0);  // a late event does not move the log's time back
  add(5.0, "scheduler", "same time as the last: not late");
  merge_.flush_all();
  EXPECT_EQ(merge_.late(), 1u);
  EXPECT_EQ(merge_.written(), 3u);
}

TEST_F(EventMergeTest, FlushAllWritesEverythingHeld) {
  add(1e9, "far future");
  add(0.0, "start");
  add(42.0, "middle");
  merge_.flush_all();
  EXPECT_EQ(merge_.held(), 0u);
  ASSERT_EQ(got().size(), 3u);
  EXPECT_EQ(got()[0].who, "start");
  EXPECT_EQ(got()[2].who, "far future");
  EXPECT_EQ(merge_.last_time(), 1e9);
  merge_.flush_all();  // nothing left: nothing more written
  EXPECT_EQ(got().size(), 3u);
}

TEST_F(EventMergeTest, LastTimeIsZeroBeforeAnythingIsWritten) {
  EXPECT_EQ(merge_.last_time(), 0.0);
  add(3.0, "held only");
  EXPECT_EQ(merge_.last_time(), 0.0);
  merge_.flush_before(10.0);
  EXPECT_EQ(merge_.last_time(), 3.0);
}

TEST_F(EventMergeTest, WrittenEventsCarryTheirValuesIntact) {
  // Many events through the heap: each one's views must still point at its own bytes.
  for (int i = 200; i > 0; --i) add(i * 0.25, "daemon:n" + std::to_string(i), "node-" + std::to_string(i));
  merge_.flush_all();
  ASSERT_EQ(got().size(), 200u);
  for (int i = 1; i <= 200; ++i) {
    const Written& w = got()[static_cast<std::size_t>(i - 1)];
    EXPECT_EQ(w, (Written{i * 0.25, "daemon:n" + std::to_string(i), "node-" + std::to_string(i)}));
  }
}

}  // namespace
}  // namespace pmixflow::emul
