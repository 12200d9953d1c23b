// What must hold of every run whatever failed during it (FLOW.md, "Faults"), checked on its
// event log alone: every call answered exactly once (or abandoned by a requestor that exited
// first), nothing held for a call nobody took, every session reported complete at most once
// and only after it was reclaimed, every session with a time limit reported complete by the end
// of a run that ended quiescent (unless the controller went, and its sessions with it), and a log
// that ends and is in time order. The fault tests and `pmixflow check`
// hold runs to it.
#pragma once

#include <string>
#include <vector>

namespace pmixflow {

struct InvariantReport {
  std::vector<std::string> breaches;  // one sentence each, naming the call or session
  // Calls still queued at a scheduler whose RM had gone for good when the run ended: not a
  // breach (the scheduler holds them for an RM that may come back) but not answered either;
  // the run reports them as outstanding (exit 1).
  std::vector<std::string> waiting_for_rm;
  // Calls still queued at an attached scheduler when the run ended quiescent: what they ask
  // for is held for good (a standing reservation, a node that never came back). Not a breach
  // either, and reported as outstanding (exit 1).
  std::vector<std::string> waiting_for_resources;
  std::size_t calls = 0;
  std::size_t sessions = 0;
  bool ok() const { return breaches.empty(); }
};

// Reads the log at `path`; throws InputError when it cannot be read at all.
InvariantReport check_invariants(const std::string& path);

}  // namespace pmixflow
