// The flow's values (vocab/info.hpp) as PMIx carries them, and back. Keys are already PMIx key
// strings; every Value alternative has one PMIx type it is written as, and reading also takes
// the narrower or platform-named types a foreign peer may use for it:
//
//   bool            PMIX_BOOL             (read: also PMIX_UNDEF, a key without value: true,
//                                          as PMIX_INFO_TRUE takes it)
//   int32           PMIX_INT32            (read: also PMIX_INT, PMIX_INT16, PMIX_INT8)
//   uint32          PMIX_UINT32           (read: also PMIX_UINT, PMIX_UINT16, PMIX_UINT8,
//                                          PMIX_PROC_RANK, and v5's PMIX_ALLOC_INHERIT)
//   uint64          PMIX_UINT64           (read: also PMIX_SIZE)
//   double          PMIX_DOUBLE           (read: also PMIX_FLOAT)
//   string          PMIX_STRING
//   Status          PMIX_STATUS
//   Directive       PMIX_ALLOC_DIRECTIVE
//   Proc            PMIX_PROC
//   InfoList        PMIX_DATA_ARRAY of PMIX_INFO (nested to any depth)
//   vector<App>     PMIX_DATA_ARRAY of PMIX_APP
//
// Writing then reading gives back the very list (types included): the emulator's outcomes are
// compared with the simulator's. A PMIx value of any other type is refused with an error
// naming the key and the type, never dropped, unless the caller names its key to be skipped.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/emul/compat.h"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow::emul {

// Owns a pmix_info_t array made with PMIX_INFO_CREATE and frees it with PMIX_INFO_FREE.
class PmixInfos {
 public:
  PmixInfos() = default;
  explicit PmixInfos(std::size_t n);  // n empty items (PMIX_UNDEF)
  ~PmixInfos();
  PmixInfos(PmixInfos&& o) noexcept;
  PmixInfos& operator=(PmixInfos&& o) noexcept;
  PmixInfos(const PmixInfos&) = delete;
  PmixInfos& operator=(const PmixInfos&) = delete;

  // Takes over an array PMIx made (PMIX_INFO_CREATE'd, e.g. a blocking call's results).
  static PmixInfos adopt(pmix_info_t* info, std::size_t n) noexcept;

  pmix_info_t* data() { return info_; }
  const pmix_info_t* data() const { return info_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  pmix_info_t& operator[](std::size_t i) { return info_[i]; }
  const pmix_info_t& operator[](std::size_t i) const { return info_[i]; }

  // Hands the array over to a PMIx callback that frees it: pass `info`/`ninfo` and then
  // `&PmixInfos::release_cb` with `release_cbdata` as the pmix_info_cbfunc_t's release_fn and
  // release_cbdata. `release_cbdata` owns the array until release_cb runs (or reclaim() takes
  // it back, when the callee refused synchronously). This object is left empty.
  struct Handoff {
    pmix_info_t* info;
    std::size_t ninfo;
    void* release_cbdata;
  };
  Handoff release();
  static void release_cb(void* release_cbdata);  // a pmix_release_cbfunc_t
  static PmixInfos reclaim(void* release_cbdata);

 private:
  void reset() noexcept;
  pmix_info_t* info_ = nullptr;
  std::size_t n_ = 0;
};

// Owns a pmix_app_t array made with PMIX_APP_CREATE and frees it with PMIX_APP_FREE (for
// PMIx_Spawn and its up-call).
class PmixApps {
 public:
  PmixApps() = default;
  explicit PmixApps(std::size_t n);
  ~PmixApps();
  PmixApps(PmixApps&& o) noexcept;
  PmixApps& operator=(PmixApps&& o) noexcept;
  PmixApps(const PmixApps&) = delete;
  PmixApps& operator=(const PmixApps&) = delete;

  pmix_app_t* data() { return apps_; }
  const pmix_app_t* data() const { return apps_; }
  std::size_t size() const { return n_; }

 private:
  void reset() noexcept;
  pmix_app_t* apps_ = nullptr;
  std::size_t n_ = 0;
};

// A PMIx value the flow cannot carry (or a flow value PMIx cannot: an over-long key or
// nspace, a string holding a NUL).
class PmixConversionError : public std::runtime_error {
 public:
  PmixConversionError(std::string key, const std::string& what)
      : std::runtime_error(key + ": " + what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// `spare` empty items are left at the end for the caller to load (a marker, an event's range).
PmixInfos to_pmix(const InfoList& list, std::size_t spare = 0);
InfoList from_pmix(const pmix_info_t* info, std::size_t n);
// Skips the items whose key is one of `skip_keys` (at the top level only), whatever their type.
InfoList from_pmix(const pmix_info_t* info, std::size_t n, std::span<const std::string_view> skip_keys);

// The keys the library adds to what an event handler receives (compat.h).
inline constexpr std::string_view kLibraryEventKeys[] = {PMIXFLOW_LIBRARY_EVENT_KEYS};
// An event handler's info without the library's keys: the sender's payload.
inline InfoList event_payload(const pmix_info_t* info, std::size_t n) { return from_pmix(info, n, kLibraryEventKeys); }

// One value. `load` expects an empty (zeroed or destructed) pmix_value_t; on a throw what it
// had already attached is left in `out` for its owner to free.
void load(pmix_value_t& out, const Value& v, std::string_view key);
Value read(const pmix_value_t& v, std::string_view key);

// pmix_app_t.argv holds argv[0] by convention (PMIx_Spawn's callers and PRRTE put the command
// there), App.argv holds only the arguments: writing puts `cmd` first, reading drops argv[0]
// whatever it is. env is NAME=value strings either way; maxprocs is an int in pmix_app_t;
// cwd and the app's info are not part of App (written empty, ignored on reading).
PmixApps to_pmix(std::span<const App> apps);
void load(pmix_app_t& out, const App& app);  // `out` empty (PMIX_APP_CONSTRUCT'ed)
App from_pmix(const pmix_app_t& app);

pmix_proc_t to_pmix(const Proc& p);  // throws when the nspace is longer than PMIX_MAX_NSLEN
Proc from_pmix(const pmix_proc_t& p);

inline pmix_status_t to_pmix(Status s) { return static_cast<pmix_status_t>(s); }
inline Status from_pmix_status(pmix_status_t s) { return static_cast<Status>(s); }
inline pmix_alloc_directive_t to_pmix(Directive d) { return static_cast<pmix_alloc_directive_t>(d); }
inline Directive from_pmix_directive(pmix_alloc_directive_t d) { return static_cast<Directive>(d); }

}  // namespace pmixflow::emul
