// What an emulation hit by the fault harness's signals (fault_injector.hpp) must have done, judged
// from what it wrote - its exit status, its terminal, its log - never from how long it took:
//   - exit 0, 1 or 3, and no other;
//   - exit 3 names a party the harness killed and the signal (`X's process killed by signal N`);
//     its log is cut (no log.end) after that party's party.down, in time order, with no
//     jobs.csv or summary.json beside it;
//   - exit 0 or 1: the finished run's invariants (run_invariants.hpp: every call accounted for
//     once, none answered twice, every session complete once, the log whole and in order) - so
//     a party stopped and continued never ends the run quiescent with work in flight; a run
//     found stuck (`stalled: X waits for N answers`) leaves unanswered exactly the calls it
//     names, where the simulator's would end quiescent with them held at the scheduler - and no
//     party the harness killed while it was surely in the flow (up well before the kill, no
//     planned end near it, the run not ending) went unnoticed. One exception, said as a note: a
//     call never made (exit 1) by a party the harness stopped - its timer held past the party's
//     planned end (a scheduler_detach, say) - is what the stop did, and the run says so.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "fault_injector.hpp"

namespace pmixflow::test {

struct FaultedRun {
  int exit_code = -1;
  std::string err;  // what the emulation said on its terminal
  std::filesystem::path out;
  std::filesystem::path scenario;
  double speed = 1;
  std::vector<Action> actions;
};

// How far the harness's idea of when it sent a signal may be from the run's, in wall seconds:
// a kill this close to a party's start or planned end, or to the run's end, proves nothing.
inline constexpr double kKillMarginWall = 0.5;

// Every breach; empty when the run did what it must. A kill that a finished run did not notice,
// and rightly so, is noted in `notes` with the reason (a spare not yet in the flow, say).
std::vector<std::string> fault_breaches(const FaultedRun& run, std::vector<std::string>& notes);

}  // namespace pmixflow::test
