// What a run did, in terms that hold whichever environment ran it: each call's answer, each
// session's life (instantiated on which nodes, terminated why, reclaimed to where, completed),
// each job's life (launched where, started, stopped, continued, signalled, ended how), and the
// scenario's own expectations. Ordered within each thing, not across things: when two
// independent things happen in the same instant is the environment's business, not the flow's;
// times are not outcomes at all. Two runs of one scenario in the simulator and the emulator must
// give the same outcomes (docs/emulation.md, "Same flow, same outcome").
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pmixflow {

struct FlowOutcomes {
  std::map<std::string, std::string> answers;                // corr -> "PMIX_SUCCESS alloc=alloc-1 session=1"
  std::map<std::string, std::vector<std::string>> sessions;  // "session 1" -> its changes, in order
  std::map<std::string, std::vector<std::string>> jobs;      // nspace -> its changes, in order
  std::vector<std::string> unmet;  // the scenario's expectations and assertions that did not hold
};

// Reads a log (a file or a run directory). Throws InputError for a log that cannot be read or is
// cut (a cut run has no outcomes to stand by).
FlowOutcomes flow_outcomes(const std::string& log);

// The outcomes as text, one per line ("call alice#1: PMIX_SUCCESS alloc=alloc-1").
std::string to_text(const FlowOutcomes& o);

// Where two runs' outcomes differ, one line each ("session 2: A has [..] where B has [..]");
// empty when they are the same.
std::vector<std::string> outcome_differences(const FlowOutcomes& a, const FlowOutcomes& b);

}  // namespace pmixflow
