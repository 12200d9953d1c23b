// Starting and stopping a party's PMIx, and the events it receives.
#include "pmixflow/emul/pmix_host.hpp"

#include <stdexcept>
#include <string_view>
#include <vector>

#include "pmix_host_upcalls.hpp"
#include "pmixflow/emul/carrier.hpp"
#include "pmixflow/emul/emul_env.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {
namespace {

// The event codes a party listens for: the flow's own events and the carrier's.
constexpr Status kEventCodes[] = {Status::DvmIsReady,      Status::ErrDvmMod,    Status::EventNodeDown,
                                  Status::EventJobStart,   Status::EventJobEnd,  Status::EventSessionStart,
                                  Status::EventSessionEnd, Status::EventNodeDown};

[[noreturn]] void refuse(const std::string& what, pmix_status_t rc) {
  throw std::runtime_error(what + ": " + PMIx_Error_string(rc));
}

PmixInfos init_info(const PmixHostOptions& o) {
  InfoList l;
  if (o.mode == PmixHostOptions::Mode::Server) {
    l.add(PMIX_SERVER_TOOL_SUPPORT, true).add(PMIX_SERVER_NSPACE, o.me.nspace).add(PMIX_SERVER_RANK, o.me.rank);
  } else {
    l.add(PMIX_TOOL_NSPACE, o.me.nspace).add(PMIX_TOOL_RANK, o.me.rank).add(PMIX_TOOL_DO_NOT_CONNECT, true);
    if (o.mode == PmixHostOptions::Mode::Launcher) l.add(PMIX_LAUNCHER, true).add(PMIX_SERVER_TOOL_SUPPORT, true);
  }
  if (!o.dir.empty()) l.add(PMIX_SERVER_TMPDIR, o.dir).add(PMIX_SYSTEM_TMPDIR, o.dir);
  return to_pmix(l);
}

}  // namespace

PmixHost*& PmixUpcalls::active() {
  static PmixHost* host = nullptr;
  return host;
}

void PmixUpcalls::event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                        pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  PmixHost* h = active();
  if (h && source) {
    try {
      const pmix_proc_t me = to_pmix(h->options_.me);
      const bool for_me = pmixflow_event_is_for(info, ninfo, &me);
      InfoList payload = event_payload(info, ninfo);
      h->loop_.post([h, status, from = from_pmix(*source), payload = std::move(payload), for_me]() mutable {
        h->on_event(status, from, std::move(payload), for_me);
      });
    } catch (const std::exception&) {
      // An event the flow cannot read: nobody waits on it.
    }
  }
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void PmixUpcalls::lost(size_t id, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                       pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                       void* cbdata) {
  PmixHost* h = active();
  // A party's own PMIX_ERR_LOST_CONNECTION notification (the RM telling its scheduler a client
  // of its went away) comes in sealed in our envelope: it is news about that client, not the
  // loss of the connection it came on.
  bool sealed = false;
  try {
    InfoList payload = event_payload(info, ninfo);
    sealed = take_envelope(payload).has_value();
  } catch (const std::exception&) {
  }
  if (sealed) return event(id, status, source, info, ninfo, results, nresults, cbfunc, cbdata);
  if (h && source) {
    // 4.2.2 reports the losses of one caching window as one event: the first connection's as
    // its source, each later one's as a PMIX_PROCID (PMIX_REPORT_EVENT, src/event/pmix_event.h).
    std::vector<Proc> gone{from_pmix(*source)};
    for (size_t i = 0; i < ninfo; ++i)
      if (std::string_view(info[i].key) == PMIX_PROCID && info[i].value.type == PMIX_PROC && info[i].value.data.proc)
        gone.push_back(from_pmix(*info[i].value.data.proc));
    h->loop_.post([h, gone = std::move(gone)] {
      for (const Proc& who : gone) h->on_lost(who, false);
    });
  }
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

PmixHost::PmixHost(Loop& loop, Directory& directory, PmixHostOptions options)
    : loop_(loop), directory_(directory), options_(std::move(options)) {}

PmixHost::~PmixHost() { stop(); }

std::string PmixHost::start() {
  if (PmixUpcalls::active()) throw std::logic_error("one PMIx host per process");
  PmixUpcalls::active() = this;
  PmixInfos info = init_info(options_);
  pmix_status_t rc = PMIX_SUCCESS;
  if (options_.mode == PmixHostOptions::Mode::Server) {
    pmix_server_module_t module = PmixUpcalls::module();
    rc = PMIx_server_init(&module, info.data(), info.size());
    if (rc == PMIX_SUCCESS) pmixflow_tags_apart();
  } else {
    pmix_proc_t me;
    rc = PMIx_tool_init(&me, info.data(), info.size());
    if (rc == PMIX_SUCCESS && options_.mode == PmixHostOptions::Mode::Launcher) {
      pmixflow_tags_apart();
      static pmix_server_module_t module = PmixUpcalls::module();
      started_ = true;
      rc = pmixflow_tool_set_server_module(&module);
    }
  }
  if (rc != PMIX_SUCCESS) {
    PmixUpcalls::active() = nullptr;
    refuse("PMIx would not start", rc);
  }
  started_ = true;
  pmixflow_tcp_nodelay();
  register_handlers();
  if (options_.mode == PmixHostOptions::Mode::Tool) return {};
  const pmix_proc_t me = to_pmix(options_.me);
  pmix_value_t* value = nullptr;
  rc = PMIx_Get(&me, PMIX_SERVER_URI, nullptr, 0, &value);
  if (rc != PMIX_SUCCESS || !value || value->type != PMIX_STRING) refuse("PMIx gave no server URI", rc);
  uri_ = value->data.string;
  PMIX_VALUE_RELEASE(value);
  return uri_;
}

void PmixHost::register_handlers() {
  // A tool's registrations go to the server it is attached to as it registers: made again after
  // each attach, or the new server would never pass it an event (4.2.2 sends none of the earlier
  // ones to a server attached later).
  for (std::size_t id : std::exchange(handlers_, {})) PMIx_Deregister_event_handler(id, nullptr, nullptr);
  std::vector<pmix_status_t> codes{kCarrierEvent};
  for (Status s : kEventCodes) codes.push_back(static_cast<pmix_status_t>(s));
  pmix_status_t rc =
      PMIx_Register_event_handler(codes.data(), codes.size(), nullptr, 0, &PmixUpcalls::event, nullptr, nullptr);
  if (rc < 0) refuse("PMIx would not take the event handler", rc);
  handlers_.push_back(static_cast<std::size_t>(rc));
  pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
  rc = PMIx_Register_event_handler(&lost, 1, nullptr, 0, &PmixUpcalls::lost, nullptr, nullptr);
  if (rc < 0) refuse("PMIx would not take the lost-connection handler", rc);
  handlers_.push_back(static_cast<std::size_t>(rc));
}

void PmixHost::stop() {
  if (!started_) return;
  // Nobody is left waiting on us: calls still unanswered fail as a server that goes would.
  auto pending = std::exchange(pending_, {});
  for (auto& [id, p] : pending) complete(p, Status::ErrUnreach, nullptr);
  started_ = false;
  if (options_.mode == PmixHostOptions::Mode::Server) {
    PMIx_server_finalize();
  } else if (primary_ && attached_.count(*primary_)) {
    const pmix_proc_t server = to_pmix(attached_[*primary_].proc);
    pmixflow_tool_finalize(&server);  // compat.h (e): 4.2.2 would release that server twice
  } else {
    PMIx_tool_finalize();
  }
  PmixUpcalls::active() = nullptr;
  // PMIx has stopped: no answer comes any more for the calls it still held.
  open_calls_.clear();
}

void PmixHost::on_event(int code, const Proc& source, InfoList payload, bool for_me) {
  if (!for_me || !env_) return;
  // Taken once, by the party it was for, and only as its sender sent it: not a relayed copy
  // (the relayer is its source) nor a second arrival along another path (carrier.hpp).
  const auto envelope = take_envelope(payload);
  if (!envelope || envelope->to != options_.me || envelope->from != source) return;
  if (!arrived_[source].first(envelope->seq)) return;
  const auto from = directory_.address_of(source);
  if (!from) return;  // not from a party of this emulation
  if (code == kCarrierEvent) {
    try {
      if (auto msg = from_carrier(payload)) env_->deliver(*from, std::move(*msg));
    } catch (const std::invalid_argument&) {
      // Not a message of ours after all: there is nobody to answer, and nothing to do.
    }
    return;
  }
  const std::string corr = take_corr(payload);
  env_->deliver(*from, Notification{static_cast<Status>(code), std::move(payload), corr});
}

// `who` by value: a caller may name the tool by its entry in tools_, which this erases.
void PmixHost::on_lost(Proc who, bool from_launcher) {
  const auto from = directory_.address_of(who);
  if (!from || !env_) return;
  if (attached_.erase(*from)) {
    if (primary_ == *from) primary_.reset();
    return env_->deliver(*from, PeerLost{*from});
  }
  // PMIx's word is of one connection, a second late: a tool connected under the same name since
  // (a hand tool's --as, a requestor's next life) is not the one that went, and its calls in
  // flight are still to be answered.
  if (!from_launcher && still_connected(who)) return;
  auto tool = tools_.find(*from);
  if (tool == tools_.end()) return;
  left_.erase(*from);  // whichever word comes first, the loss is heard once
  // A party's own identity can be lost twice over in 4.2.2: a server reports the loss of a
  // restarted scheduler's earlier connection again, a second later, under the identity its new
  // process has taken up (docs/pmix-compat.md). The emulation that runs the parties says which
  // process ended; PMIx's word counts for tools only.
  if (!from_launcher && from->kind != PartyKind::Requestor) return;
  const bool news = tool->second.talked || from->kind != PartyKind::Requestor;
  tools_.erase(tool);
  {
    const std::lock_guard lock(mutex_);
    connected_.erase(who);
  }
  if (news) env_->deliver(*from, PeerLost{*from});
}

bool PmixHost::still_connected(const Proc& who) {
  const auto it = connections_.find(who);
  if (it == connections_.end()) return false;
  if (--it->second > 0) return true;
  connections_.erase(it);
  return false;
}

void PmixHost::peer_gone(Address peer) {
  // A requestor gone before it was heard from may have called just before it went: PMIx reads
  // its connection in order, but the launcher's word comes another way and can overtake the
  // call. The loss is news once such a call has been taken (lost_after_its_calls), after it,
  // as the simulator's link carries it.
  if (auto it = tools_.find(peer); peer.kind == PartyKind::Requestor && (it == tools_.end() || !it->second.talked)) {
    left_.insert(peer);
    return;
  }
  if (auto it = tools_.find(peer); it != tools_.end()) return on_lost(it->second.proc, true);
  if (attached_.erase(peer)) {
    if (primary_ == peer) primary_.reset();
    if (env_) env_->deliver(peer, PeerLost{peer});
  }
}

void PmixHost::lost_after_its_calls(Address from) {
  if (!left_.erase(from)) return;
  if (auto it = tools_.find(from); it != tools_.end()) on_lost(it->second.proc, true);
}

bool PmixHost::busy() const { return !held_.empty(); }

bool PmixHost::carry(Address to, Message& msg) {
  if (!started_) return false;
  if (answer(to, msg)) return true;
  if (tools_.count(to)) return push(to, msg);
  // A server calls no one with PMIx's client calls (4.2.2 loops them back into its own host),
  // and never attaches to its scheduler (docs/pmix-compat.md: two servers attaching to each
  // other at once deadlock in their handshakes): what the RM has for its scheduler, its looking
  // for it at start-up included, waits for the scheduler to attach, which it does as soon as it
  // sees the RM.
  if (options_.mode == PmixHostOptions::Mode::Server) return hold(to, msg);
  if (auto* c = std::get_if<ConnectRequest>(&msg)) return connect(to, *c);
  return call(to, msg);
}

}  // namespace pmixflow::emul
