// The accounts a run's outputs are computed from, fed by a role's events in a unit test.
#pragma once

#include "pmixflow/log/sink.hpp"
#include "pmixflow/results/ledger.hpp"

namespace pmixflow::test {

struct CallsSink final : log::EventSink {
  log::KindSet kinds() const override { return CallLedger::kinds(); }
  void begin(const log::LogHeader&) override {}
  void event(const log::EventView& e) override { ledger.apply(e); }
  void end(const log::EventView&) override {}
  const CallRecord& at(std::size_t i) const { return ledger.calls().at(i); }
  CallLedger ledger;
};

struct SchedulerSink final : log::EventSink {
  log::KindSet kinds() const override { return AllocationLedger::kinds(); }
  void begin(const log::LogHeader&) override {}
  void event(const log::EventView& e) override { ledger.apply(e); }
  void end(const log::EventView&) override {}
  const AllocationAccount& at(std::size_t i) const { return ledger.accounts().at(i); }
  AllocationLedger ledger;
};

}  // namespace pmixflow::test
