#include "pmixflow/trace/fault_triggers.hpp"

namespace pmixflow {

FaultTriggers::FaultTriggers(std::vector<FaultTrigger> triggers, Fire fire) : fire_(std::move(fire)) {
  for (auto& t : triggers) {
    kinds_.set(static_cast<std::size_t>(t.match.kind));
    watches_.push_back(Watch{std::move(t), 0});
  }
}

void FaultTriggers::event(const log::EventView& e) {
  for (std::size_t i = 0; i < watches_.size(); ++i) {
    Watch& w = watches_[i];
    if (w.seen >= w.trigger.nth || !event_matches(w.trigger.match, e)) continue;
    // Counted before firing: what the fault makes happen is logged from inside fire_, and
    // must not count towards (or fire) this trigger again.
    if (++w.seen == w.trigger.nth) fire_(i, e.t);
  }
}

}  // namespace pmixflow
