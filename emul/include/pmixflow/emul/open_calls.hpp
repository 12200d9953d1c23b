// The calls of this process that PMIx holds, by the pointer PMIx was given for each: the call's
// callback (on PMIx's thread) takes its record, once; what is left when PMIx has stopped - calls
// never answered, as a requestor's that exits with a call in flight - goes with the map. A
// second completion of one call (4.2.2 can make one: docs/pmix-compat.md, "A reply after a lost
// primary server") finds nothing and is dropped.
#pragma once

#include <map>
#include <memory>
#include <mutex>

namespace pmixflow::emul {

template <class Call>
class OpenCalls {
 public:
  // Opened before PMIx has it: its answer may come on PMIx's thread before the call returns.
  Call* open(std::unique_ptr<Call> call) {
    Call* raw = call.get();
    const std::lock_guard lock(mutex_);
    calls_.emplace(raw, std::move(call));
    return raw;
  }
  // The call completed: null when it is not open (answered already, or never opened here).
  std::unique_ptr<Call> answer(const void* cbdata) {
    const std::lock_guard lock(mutex_);
    auto it = calls_.find(cbdata);
    if (it == calls_.end()) return nullptr;
    auto call = std::move(it->second);
    calls_.erase(it);
    return call;
  }
  void forget(const void* cbdata) { (void)answer(cbdata); }  // a call PMIx never took
  void clear() {
    const std::lock_guard lock(mutex_);
    calls_.clear();
  }

 private:
  std::mutex mutex_;
  std::map<const void*, std::unique_ptr<Call>> calls_;
};

}  // namespace pmixflow::emul
