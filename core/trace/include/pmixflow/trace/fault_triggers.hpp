// The faults a scenario triggers by what happens (FaultTrigger: "when the request reaches
// daemon n02", "after the 3rd grant"), watched for on the run's own events: an environment
// attaches this to its EventLog and carries out each fault when it fires. Being a sink of the
// log, it sees exactly what the log says happened, in the order it happened, in either
// environment.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "pmixflow/log/sink.hpp"
#include "pmixflow/trace/scenario.hpp"

namespace pmixflow {

class FaultTriggers final : public log::EventSink {
 public:
  // `fire(i, t)`: trigger i's nth matching event was logged at time t. Each fires once.
  using Fire = std::function<void(std::size_t index, double t)>;
  FaultTriggers(std::vector<FaultTrigger> triggers, Fire fire);

  log::KindSet kinds() const override { return kinds_; }
  void begin(const log::LogHeader&) override {}
  void event(const log::EventView& e) override;
  void end(const log::EventView&) override {}

 private:
  struct Watch {
    FaultTrigger trigger;
    std::uint32_t seen = 0;
  };
  std::vector<Watch> watches_;
  Fire fire_;
  log::KindSet kinds_;
};

}  // namespace pmixflow
