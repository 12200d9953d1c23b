// A requestor a person runs by hand against a running emulation (pmixflow request, session,
// spawn): a PMIx tool of its own process that attaches to one of the emulation's servers, makes
// one call the way the emulation's own requestors make it (pmix_host_tool.cpp) and waits for the
// answer. The servers are found in the emulation's directory, which `pmixflow emul --hold`
// prints: its servers.json lists each server's party and URI (conductor_end.cpp).
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pmixflow/roles/requestor.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow::emul {

// A server to attach to: its party's name in the emulation ("controller", "daemon:n01",
// "scheduler"; empty when given by URI alone) and its PMIX_SERVER_URI.
struct HandServer {
  std::string party;
  std::string uri;
};

// The server `party` of the emulation whose directory is `dir`. Throws InputError naming the
// directory when it cannot be read (another user's emulation: mode 0700), holds no servers.json
// (not an emulation's directory, or the emulation has ended), or lists no server `party` (the
// message lists those it has).
HandServer server_of_emulation(const std::string& dir, const std::string& party);

// A status for people: "PMIX_ERR_NOT_FOUND (-46)"; one the flow has no name for with the
// library's own words for it, "-31 (PMIx: INIT)".
std::string status_text(Status status);

// The answer to one call: the status, the info (a spawn's namespace as PMIX_NSPACE), or the
// wait given up on.
struct HandAnswer {
  Status status = Status::Success;
  InfoList info;
  bool timed_out = false;
};

// PMIx would not start, or the server would not take the connection: `status` says why.
class HandToolError : public std::runtime_error {
 public:
  HandToolError(const std::string& what, Status status) : std::runtime_error(what), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

// Ctrl-C (or SIGTERM, SIGHUP) while the tool waited: it stopped waiting, and cleans up as it goes.
class HandToolStopped : public std::runtime_error {
 public:
  HandToolStopped() : std::runtime_error("interrupted") {}
};

class HeldSignals;  // hand_tool.cpp

struct HandToolOptions {
  Proc me;  // the tool's PMIx identity; its server names it requestor:NSPACE in the event log
  HandServer server;
  double timeout_s = 30;  // bounds attaching and the call's answer together
};

class HandTool {
 public:
  // Starts PMIx (one tool per process: PMIx allows no second) and attaches. Throws HandToolError,
  // or HandToolStopped. Until it is destroyed, SIGINT, SIGTERM and SIGHUP stop its waits instead
  // of ending the process.
  explicit HandTool(HandToolOptions options);
  ~HandTool();
  HandTool(const HandTool&) = delete;
  HandTool& operator=(const HandTool&) = delete;

  // Makes the call, its correlation `corr` carried as the emulation's own requestors carry theirs
  // (carrier.hpp, kCorrKey), and waits until it is answered or the time given is up. Throws
  // HandToolStopped when a stop signal came first, InputError for a value PMIx cannot carry.
  HandAnswer call(const Call& call, const std::string& corr);

  struct Waiter;  // one call in flight (hand_tool.cpp)

 private:
  void attach();

  HandToolOptions options_;
  std::unique_ptr<HeldSignals> signals_;  // before PMIx starts, after it ends: its threads inherit the mask
  std::string dir_;                       // the tool's own PMIx directory, removed at the end
  bool started_ = false;
  bool attached_ = false;
  bool stuck_ = false;  // a PMIx call never returned: PMIx may not be called again (hand_tool.cpp)
  Proc server_proc_;
  std::chrono::steady_clock::time_point deadline_;
  // Calls made; a call given up on stays until PMIx is finalized, as PMIx may still answer it.
  std::vector<std::unique_ptr<Waiter>> waiters_;
};

}  // namespace pmixflow::emul
