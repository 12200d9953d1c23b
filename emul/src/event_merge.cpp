#include "event_merge.hpp"

#include <limits>

namespace pmixflow::emul {

void EventMerge::add(log::DecodedEvent event) {
  const double t = event.view().t;
  heap_.push(Held{t, seq_++, std::move(event)});
}

void EventMerge::flush_before(double watermark) {
  while (!heap_.empty() && heap_.top().t < watermark) {
    // The heap's top is const: move out through a copy of the handle, then pop.
    auto& top = const_cast<Held&>(heap_.top());
    log::DecodedEvent event = std::move(top.event);
    heap_.pop();
    const log::EventView v = event.view();
    if (v.t < last_) {
      ++late_;  // written where it arrived: its own time stays in the line
    } else {
      last_ = v.t;
    }
    log_.write(v);
    ++written_;
  }
}

}  // namespace pmixflow::emul
