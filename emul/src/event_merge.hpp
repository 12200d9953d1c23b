// The parties' events, merged into one log in time order. Each party stamps its events with the
// run's clock (one steady clock for every process of this machine), in order, on its loop's
// thread, and they arrive over separate lines: an event is held until every party that may still
// log has said its clock is past it (conductor_end.cpp, write_settled), then written. The order is
// so by construction, whatever the load; an event stamped before one already written - a party
// that broke its word, which none does - would be written anyway, where it arrives, and counted
// (`late`): nothing is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "pmixflow/log/event_codec.hpp"
#include "pmixflow/log/sink.hpp"

namespace pmixflow::emul {

class EventMerge {
 public:
  explicit EventMerge(log::EventLog& log) : log_(log) {}

  void add(log::DecodedEvent event);
  // Writes every event stamped before `watermark` (scenario seconds).
  void flush_before(double watermark);
  void flush_all() { flush_before(std::numeric_limits<double>::infinity()); }

  std::size_t held() const { return heap_.size(); }
  // The stamp of the earliest event held (held() > 0).
  double oldest() const { return heap_.top().t; }
  double last_time() const { return last_; }
  std::uint64_t late() const { return late_; }
  std::uint64_t written() const { return written_; }

 private:
  struct Held {
    double t;
    std::uint64_t seq;  // arrival order among events of the same time
    log::DecodedEvent event;
  };
  struct Later {
    bool operator()(const Held& a, const Held& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
  };
  log::EventLog& log_;
  std::priority_queue<Held, std::vector<Held>, Later> heap_;
  std::uint64_t seq_ = 0;
  double last_ = 0;
  std::uint64_t late_ = 0;
  std::uint64_t written_ = 0;
};

}  // namespace pmixflow::emul
