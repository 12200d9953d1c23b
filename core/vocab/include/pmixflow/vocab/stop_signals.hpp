// Ctrl-C (SIGINT), SIGTERM and SIGHUP, held back from the whole process while a run goes and
// taken when the run looks for them: the run then stops in order - its log cut where it was, its
// outputs never completed, its children stopped - instead of dying wherever the signal found it.
// The same for every command that runs something: `pmixflow sim`, `emul` and `sweep`.
#pragma once

#include <signal.h>

#include <initializer_list>
#include <string>

namespace pmixflow {

// The exit status of a run stopped by one of them, as a shell reports a command ended by Ctrl-C.
inline constexpr int kStoppedBySignal = 130;

// Signals held back (blocked) in the calling thread and read from a descriptor instead of acting.
class HeldSignals {
 public:
  // Make it before any thread is started (SimGrid's, PMIx's): they inherit the mask, so that
  // no thread dies of a signal or runs another handler for it (SimGrid's own for Ctrl-C exits 1).
  explicit HeldSignals(std::initializer_list<int> signals);
  // Restores the mask: a signal that came after it was last looked for then acts as it would have.
  ~HeldSignals();
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

  // Readable when one is waiting: for a loop that polls descriptors.
  int fd() const { return fd_; }
  // The signal waiting (taking it), or 0 when none is. Never blocks.
  int take();
  // The mask before: what a child started meanwhile should have (posix_spawnattr_setsigmask).
  const sigset_t& previous_mask() const { return old_; }

 private:
  int fd_ = -1;
  sigset_t old_{};
};

class StopSignals : public HeldSignals {
 public:
  StopSignals() : HeldSignals({SIGINT, SIGTERM, SIGHUP}) {}
};

// "stopped by Interrupt", "stopped by Terminated": how every command says why it stopped.
std::string stopped_by(int signal);

}  // namespace pmixflow
