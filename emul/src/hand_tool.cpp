// A requestor run by hand: finding the emulation's server, attaching, one call and its answer.
#include "pmixflow/emul/hand_tool.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "pmixflow/emul/carrier.hpp"
#include "pmixflow/emul/pmix_info.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::emul {

struct HandTool::Waiter {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  HandAnswer answer;
  PmixInfos info;  // what the call carries: PMIx may read it until the answer
  PmixApps apps;

  void finish(HandAnswer a) {
    {
      const std::lock_guard lock(mutex);
      answer = std::move(a);
      done = true;
    }
    done_cv.notify_all();
  }
};

// Ctrl-C, SIGTERM and SIGHUP, held back from the whole process while PMIx runs (its threads,
// started later, inherit the mask) and taken by the waits as the end of waiting: the tool then
// finalizes and removes its directory instead of dying with them.
class HeldSignals {
 public:
  HeldSignals() {
    sigemptyset(&set_);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set_, s);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~HeldSignals() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  bool taken() const {
    const timespec now{};
    return ::sigtimedwait(&set_, nullptr, &now) > 0;
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
};

namespace {

// How long finalizing may take once the call is done.
constexpr auto kFinalizeGrace = std::chrono::seconds(3);

[[noreturn]] void bad_dir(const std::string& dir, const std::string& what) { throw InputError(dir, 0, "", what); }

// The directory's servers.json, or an error saying why a person cannot have it.
nlohmann::json read_servers(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    bad_dir(dir, "no such directory (pmixflow emul --hold prints the directory of its emulation)");
  if (::access(dir.c_str(), R_OK | X_OK) != 0) {
    const int e = errno;
    struct stat st {};
    ::stat(dir.c_str(), &st);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    bad_dir(dir, "cannot be read (" + std::string(std::strerror(e)) + "; owner uid " + std::to_string(st.st_uid) +
                     ", mode " + mode +
                     "): another user's emulation? Its owner can let you in (pmixflow emul --allow-user) and give "
                     "you a server's URI for --uri");
  }
  const std::string path = dir + "/servers.json";
  std::ifstream in(path);
  if (!in) bad_dir(dir, "holds no readable servers.json: not the directory of a running emulation (it may have ended)");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) bad_dir(dir, "servers.json is not the list pmixflow emul writes");
  return j;
}

std::string field(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// What a call's answer carries, item by item: an item of a type the flow does not know (a real
// server's) is shown by its type rather than losing the whole answer.
InfoList readable(const pmix_info_t* info, std::size_t n) {
  InfoList out;
  for (std::size_t i = 0; i < n; ++i) {
    try {
      for (auto& item : from_pmix(&info[i], 1).items) out.items.push_back(std::move(item));
    } catch (const std::exception&) {
      out.add(info[i].key, "(a " + std::string(PMIx_Data_type_string(info[i].value.type)) + ")");
    }
  }
  return out;
}

// PMIx's callbacks, on its progress thread: nothing may escape into PMIx.
void answered(pmix_status_t rc, pmix_info_t* info, size_t ninfo, void* cbdata, pmix_release_cbfunc_t release,
              void* release_data) noexcept {
  HandAnswer a;
  a.status = from_pmix_status(rc);
  try {
    a.info = readable(info, ninfo);
  } catch (const std::exception&) {
    a.info = InfoList{};  // no memory left to read it: the status is the answer
  }
  if (release) release(release_data);
  static_cast<HandTool::Waiter*>(cbdata)->finish(std::move(a));
}

void spawned(pmix_status_t rc, char nspace[], void* cbdata) noexcept {
  HandAnswer a;
  a.status = from_pmix_status(rc);
  try {
    if (nspace && *nspace) a.info.add(PMIX_NSPACE, std::string(nspace));
  } catch (const std::exception&) {
    a.info = InfoList{};
  }
  static_cast<HandTool::Waiter*>(cbdata)->finish(std::move(a));
}

enum class Waited { Done, TimedOut, Stopped };

// Waits until `done`, the deadline or a stop signal, whichever comes first. In slices: a signal
// held back wakes no condition variable.
template <class Pred>
Waited wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  std::chrono::steady_clock::time_point deadline, const HeldSignals& stop, Pred done) {
  constexpr auto kSlice = std::chrono::milliseconds(50);
  while (!done()) {
    if (stop.taken()) return Waited::Stopped;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Waited::TimedOut;
    cv.wait_until(lock, std::min(deadline, now + kSlice), done);
  }
  return Waited::Done;
}

// Runs `fn` (a blocking PMIx call) on a thread of its own and waits for it as wait_until does.
// 4.2.2 honours no timeout while a stopped or wedged server keeps a handshake or a disconnection
// waiting, and such a call cannot be cancelled: if it is still going, the thread is left to it
// (it owns what it uses), and the process must not call PMIx again.
template <class Fn>
Waited within(std::chrono::steady_clock::time_point deadline, const HeldSignals& stop, Fn fn) {
  struct Run {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
  };
  auto run = std::make_shared<Run>();
  std::thread([run, fn = std::move(fn)]() mutable {
    fn();
    {
      const std::lock_guard lock(run->mutex);
      run->done = true;
    }
    run->done_cv.notify_all();
  }).detach();
  std::unique_lock lock(run->mutex);
  return wait_until(lock, run->done_cv, deadline, stop, [&run] { return run->done; });
}

std::string private_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string p = std::string(t && *t ? t : "/tmp") + "/pmixflow-tool-XXXXXX";
  if (!::mkdtemp(p.data())) throw std::system_error(errno, std::generic_category(), "creating " + p);
  return p;
}

}  // namespace

std::string status_text(Status status) {
  const std::string name = status_name(status), code = std::to_string(static_cast<int>(status));
  if (name != code) return name + " (" + code + ")";
  return code + " (PMIx: " + PMIx_Error_string(to_pmix(status)) + ")";
}

HandServer server_of_emulation(const std::string& dir, const std::string& party) {
  const nlohmann::json servers = read_servers(dir);
  std::string listed;
  for (const auto& e : servers) {
    if (!e.is_object()) continue;
    if (field(e, "party") == party && !field(e, "uri").empty()) return HandServer{party, field(e, "uri")};
    listed += (listed.empty() ? "" : ", ") + field(e, "party");
  }
  bad_dir(dir, "no server '" + party + "' in this emulation (it has: " + (listed.empty() ? "none yet" : listed) +
                   "; a daemon serves only while its node is in the DVM)");
}

HandTool::HandTool(HandToolOptions options)
    : options_(std::move(options)),
      signals_(std::make_unique<HeldSignals>()),
      deadline_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(options_.timeout_s))) {
  dir_ = private_dir();
  // The hash store only: PMIx's shared-memory store has nothing to share in a tool, and says so.
  ::setenv("PMIX_MCA_gds", "hash", 0);
  InfoList l;
  l.add(PMIX_TOOL_NSPACE, options_.me.nspace).add(PMIX_TOOL_RANK, options_.me.rank);
  // Not to whatever server PMIx finds first: to the one named, below.
  l.add(PMIX_TOOL_DO_NOT_CONNECT, true).add(PMIX_SERVER_TMPDIR, dir_).add(PMIX_SYSTEM_TMPDIR, dir_);
  PmixInfos info = to_pmix(l);
  pmix_proc_t me;
  const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size());
  if (rc != PMIX_SUCCESS) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw HandToolError("PMIx would not start", from_pmix_status(rc));
  }
  started_ = true;
  try {
    attach();
  } catch (...) {
    if (!stuck_) PMIx_tool_finalize();
    started_ = false;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    throw;
  }
}

HandTool::~HandTool() {
  if (started_ && !stuck_) {
    const bool attached = attached_;
    const pmix_proc_t server = to_pmix(server_proc_);
    // A server stopped since the answer would keep the disconnection waiting: bounded too.
    const Waited finalized = within(std::chrono::steady_clock::now() + kFinalizeGrace, *signals_, [attached, server] {
      if (attached)
        pmixflow_tool_finalize(&server);  // compat.h (e): 4.2.2 would release the server twice
      else
        PMIx_tool_finalize();
    });
    // PMIx still running may still answer a call given up on: what it would write to must stay.
    if (finalized != Waited::Done)
      for (auto& w : waiters_) (void)w.release();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void HandTool::attach() {
  const double left = std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  InfoList l;
  l.add(PMIX_SERVER_URI, options_.server.uri);
  l.add(PMIX_TIMEOUT, static_cast<std::int32_t>(std::max(1.0, std::ceil(left))));
  // The primary server: where the calls go (without it 4.2.2 leaves the next call hanging).
  l.add(PMIX_PRIMARY_SERVER, true);
  struct Attach {
    PmixInfos info;
    pmix_proc_t got;
    pmix_status_t rc = PMIX_ERR_TIMEOUT;
  };
  auto a = std::make_shared<Attach>();
  a->info = to_pmix(l);
  // 4.2.2 ignores PMIX_TIMEOUT while a server that took the connection never answers it.
  const Waited waited = within(deadline_, *signals_, [a] {
    a->rc = PMIx_tool_attach_to_server(nullptr, &a->got, a->info.data(), a->info.size());
  });
  if (waited != Waited::Done) stuck_ = true;
  if (waited == Waited::Stopped) throw HandToolStopped();
  if (waited == Waited::TimedOut) {
    std::ostringstream what;
    what << "no answer to the attachment within " << options_.timeout_s << " s (--timeout)";
    throw HandToolError(what.str(), Status::ErrTimeout);
  }
  if (a->rc != PMIX_SUCCESS) throw HandToolError("could not attach", from_pmix_status(a->rc));
  pmixflow_tcp_nodelay();
  attached_ = true;
  server_proc_ = from_pmix(a->got);
}

HandAnswer HandTool::call(const Call& call, const std::string& corr) {
  // Kept until PMIx is finalized: a call given up on may still be answered.
  waiters_.push_back(std::make_unique<Waiter>());
  Waiter& w = *waiters_.back();
  pmix_status_t rc = PMIX_ERROR;
  try {
    rc = std::visit(
        [&](const auto& c) -> pmix_status_t {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, AllocRequest>) {
            InfoList info = c.info;
            add_corr(info, corr);
            w.info = to_pmix(info);
            return PMIx_Allocation_request_nb(to_pmix(c.directive), w.info.data(), w.info.size(), &answered, &w);
          } else if constexpr (std::is_same_v<T, SessionCtrlRequest>) {
            InfoList info = c.directives;
            add_corr(info, corr);
            w.info = to_pmix(info);
            return pmixflow_Session_control_nb(c.session_id, w.info.data(), w.info.size(), &answered, &w);
          } else {
            InfoList info = c.job_info;
            add_corr(info, corr);
            w.info = to_pmix(info);
            w.apps = to_pmix(std::span<const App>(c.apps));
            return PMIx_Spawn_nb(w.info.data(), w.info.size(), w.apps.data(), w.apps.size(), &spawned, &w);
          }
        },
        call);
  } catch (const PmixConversionError& e) {
    // A value PMIx cannot carry (an over-long key): the input's fault, and nothing was sent.
    throw InputError("", 0, "", e.what());
  }
  if (rc != PMIX_SUCCESS) return HandAnswer{from_pmix_status(rc), {}, false};  // never sent: no callback
  std::unique_lock lock(w.mutex);
  switch (wait_until(lock, w.done_cv, deadline_, *signals_, [&w] { return w.done; })) {
    case Waited::Done: return w.answer;
    case Waited::TimedOut: return HandAnswer{Status::ErrTimeout, {}, true};
    case Waited::Stopped: break;
  }
  throw HandToolStopped();
}

}  // namespace pmixflow::emul
