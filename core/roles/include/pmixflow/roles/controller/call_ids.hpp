// The controller's own handles for the calls it makes - a forwarded request, its connection to
// the scheduler, a PMIX_SESSION_COMPLETE, a spawn in progress: one sequence, so that no two of
// them share an id whatever part of the controller made them.
#pragma once

#include <cstdint>

namespace pmixflow {

class CallIds {
 public:
  std::uint64_t next() { return next_++; }

 private:
  std::uint64_t next_ = 1;
};

}  // namespace pmixflow
