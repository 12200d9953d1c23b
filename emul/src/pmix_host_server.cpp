// A party's PMIx server side: the tools attached to it, their calls handed to the role as
// messages, and the role's answers and events handed back.
#include <algorithm>

#include "pmix_host_upcalls.hpp"
#include "pmixflow/emul/carrier.hpp"
#include "pmixflow/emul/emul_env.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {
namespace {

// Runs `fn` on PMIx's thread; what it throws becomes a status for PMIx: bad input from a tool
// is the tool's error, never the host's end.
template <class Fn>
pmix_status_t guarded(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::exception&) {
    return PMIX_ERR_BAD_PARAM;
  }
}

Proc tool_proc(const pmix_info_t* info, size_t n, Credentials& c) {
  Proc p;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view key = info[i].key;
    if (key == PMIX_NSPACE && info[i].value.type == PMIX_STRING) p.nspace = info[i].value.data.string;
    if (key == PMIX_RANK && info[i].value.type == PMIX_PROC_RANK) p.rank = info[i].value.data.rank;
    if (key == PMIX_USERID && info[i].value.type == PMIX_UINT32) c.uid = info[i].value.data.uint32;
    if (key == PMIX_GRPID && info[i].value.type == PMIX_UINT32) c.gid = info[i].value.data.uint32;
  }
  return p;
}

}  // namespace

pmix_server_module_t PmixUpcalls::module() {
  pmix_server_module_t m{};
  m.tool_connected = &PmixUpcalls::tool_connected;
  m.allocate = &PmixUpcalls::allocate;
  m.job_control = &PmixUpcalls::job_control;
  m.spawn = &PmixUpcalls::spawn;
  m.register_events = &PmixUpcalls::register_events;
  m.deregister_events = &PmixUpcalls::deregister_events;
  return m;
}

// A tool registering for a system event (PMIX_EVENT_NODE_DOWN is one) needs its server's host
// to take the registration, or 4.2.2 refuses it: the parties raise those events themselves, so
// there is nothing to set up - taken at once.
pmix_status_t PmixUpcalls::register_events(pmix_status_t*, size_t, const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                           void*) {
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t PmixUpcalls::deregister_events(pmix_status_t*, size_t, pmix_op_cbfunc_t, void*) {
  return PMIX_OPERATION_SUCCEEDED;
}

void PmixUpcalls::tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                                 void* cbdata) {
  PmixHost* h = active();
  Credentials c{UINT32_MAX, UINT32_MAX};
  pmix_proc_t granted;
  PMIX_LOAD_PROCID(&granted, "", 0);
  // Every connection is taken (docs/pmix-compat.md: a refused one crashes a 4.2.2 server); a
  // tool that is not let in has each of its calls refused instead (upcall()).
  if (!h) return cbfunc(PMIX_SUCCESS, &granted, cbdata);
  try {
    const Proc p = tool_proc(info, ninfo, c);
    const bool owner = c.uid == h->options_.owner;
    const auto& allowed = h->options_.allowed;
    const bool listed = owner || std::find(allowed.begin(), allowed.end(), c.uid) != allowed.end();
    // The parties' own identities are the emulation user's alone: another user's tool may not
    // pass itself off as the scheduler or the RM.
    const bool party = p.nspace == kSchedulerNspace || p.nspace == kDvmNspace;
    bool admitted = listed && !(party && !owner) && !p.nspace.empty();
    Proc as = p;
    {
      const std::lock_guard lock(h->mutex_);
      // An up-call names its caller by identity, not by connection: a tool naming itself as a
      // party, or as a tool another user connected as, would be served as that one. PMIx knows
      // it by a name of its own instead (the host's to give: 4.2.2 files the connection under
      // it), which is never let in.
      const auto held = h->connected_.find(p);
      if ((party && !owner) || (held != h->connected_.end() && !(held->second.credentials == c))) {
        as = Proc{"pmixflow-refused-" + std::to_string(++h->refused_), 0};
        admitted = false;
      }
      h->connected_[as] = PmixHost::Connection{c, admitted};
    }
    granted = to_pmix(as);
    // Answered here, on PMIx's thread: a tool's connection never waits for the party's loop,
    // which may itself be attaching somewhere (two progress threads each waiting on the
    // other's handshake would never finish).
    cbfunc(PMIX_SUCCESS, &granted, cbdata);
    // A tool connecting is a process that is up: a requestor's new life (requestor_start) is not
    // the one its launcher said had gone before it was heard from (peer_gone, left_).
    h->loop_.post([h, as] {
      ++h->connections_[as];
      h->left_.erase(h->admit(as));
    });
  } catch (const std::exception&) {
    cbfunc(PMIX_SUCCESS, &granted, cbdata);  // not recorded, so never let in
  }
}

pmix_status_t PmixUpcalls::allocate(const pmix_proc_t* client, pmix_alloc_directive_t directive,
                                    const pmix_info_t* data, size_t ndata, pmix_info_cbfunc_t cbfunc, void* cbdata) {
  PmixHost* h = active();
  if (!h) return PMIX_ERR_NOT_AVAILABLE;
  return guarded([&] {
    AllocRequest req{0, from_pmix_directive(directive), from_pmix(data, ndata), from_pmix(*client), {}};
    h->loop_.post([h, req = std::move(req), cbfunc, cbdata]() mutable {
      const Address from = h->admit(req.caller);
      req.corr = take_corr(req.info);
      h->upcall(from, std::move(req), PmixHost::Answer::Info, reinterpret_cast<void*>(cbfunc), cbdata);
    });
    return PMIX_SUCCESS;
  });
}

pmix_status_t PmixUpcalls::job_control(const pmix_proc_t* requestor, const pmix_proc_t[], size_t,
                                       const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                       void* cbdata) {
  PmixHost* h = active();
  if (!h) return PMIX_ERR_NOT_AVAILABLE;
  return guarded([&]() -> pmix_status_t {
    uint32_t session = 0;
    size_t marker = 0;
    const Proc caller = from_pmix(*requestor);
    if (pmixflow_session_control_unwrap(directives, ndirs, &session, &marker)) {
      const std::string_view skip[] = {PMIXFLOW_SESSION_CONTROL_MARKER};
      SessionCtrlRequest req{0, session, from_pmix(directives, ndirs, skip), caller, {}};
      h->loop_.post([h, req = std::move(req), cbfunc, cbdata]() mutable {
        const Address from = h->admit(req.caller);
        req.corr = take_corr(req.directives);
        h->upcall(from, std::move(req), PmixHost::Answer::Info, reinterpret_cast<void*>(cbfunc), cbdata);
      });
      return PMIX_SUCCESS;
    }
    auto msg = from_carrier(from_pmix(directives, ndirs));
    if (!msg) return PMIX_ERR_NOT_SUPPORTED;  // a genuine job control: not part of the flow
    // A message carried up is taken as it arrives: the job control's reply only says "received"
    // (an answer to it, a ConnectResponse, is carried down on its own, as the RM's messages to its
    // scheduler are).
    cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, nullptr, nullptr);
    h->loop_.post([h, caller, msg = std::move(*msg)]() mutable {
      const Address from = h->admit(caller);
      if (auto* req = std::get_if<ConnectRequest>(&msg)) req->caller = caller;  // who declares is who connected
      h->heard_from(from);
      const auto* n = std::get_if<Notification>(&msg);
      if (!n || n->code != kToolReady) h->carried_in(from, std::move(msg));
      h->lost_after_its_calls(from);
    });
    return PMIX_SUCCESS;
  });
}

pmix_status_t PmixUpcalls::spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                                 const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
  PmixHost* h = active();
  if (!h) return PMIX_ERR_NOT_AVAILABLE;
  return guarded([&] {
    SpawnRequest req{0, {}, from_pmix(job_info, ninfo), from_pmix(*proc), {}};
    for (size_t i = 0; i < napps; ++i) req.apps.push_back(from_pmix(apps[i]));
    h->loop_.post([h, req = std::move(req), cbfunc, cbdata]() mutable {
      const Address from = h->admit(req.caller);
      req.corr = take_corr(req.job_info);
      h->upcall(from, std::move(req), PmixHost::Answer::Spawn, reinterpret_cast<void*>(cbfunc), cbdata);
    });
    return PMIX_SUCCESS;
  });
}

Address PmixHost::admit(const Proc& proc) {
  const Address a = directory_.tool(proc);
  if (!tools_.count(a)) {
    Connection c;  // a tool never seen connecting (it cannot be) is not let in
    {
      const std::lock_guard lock(mutex_);
      if (auto it = connected_.find(proc); it != connected_.end()) c = it->second;
    }
    tools_.emplace(a, Tool{proc, c, false});
  }
  return a;
}

void PmixHost::heard_from(Address tool) {
  auto it = tools_.find(tool);
  if (it == tools_.end() || it->second.talked) return;
  it->second.talked = true;
  // What waited for it to be ready, in the order it was sent.
  auto held = held_.extract(tool);
  if (!held.empty())
    for (auto& m : held.mapped()) push(tool, m);
}

void PmixHost::carried_in(Address from, Message msg) {
  const auto it = tools_.find(from);
  if (it != tools_.end() && it->second.connection.admitted && accepting_ && env_) return env_->deliver(from, std::move(msg));
  // Not let in, or not up yet: a declaration gets its refusal, anything else is dropped (it was
  // an answer or an event nobody waits on here).
  if (const auto* req = std::get_if<ConnectRequest>(&msg)) {
    Message no = ConnectResponse{req->id, accepting_ ? Status::ErrNoPermissions : Status::ErrUnreach};
    push(from, no);
  }
}

void PmixHost::upcall(Address from, Message msg, Answer kind, void* cbfunc, void* cbdata) {
  take_upcall(from, std::move(msg), kind, cbfunc, cbdata);
  lost_after_its_calls(from);
}

void PmixHost::take_upcall(Address from, Message msg, Answer kind, void* cbfunc, void* cbdata) {
  const std::uint64_t id = next_id_++;
  heard_from(from);
  auto& tool = tools_[from];
  std::visit(
      [&](auto& m) {
        if constexpr (requires { m.id; }) m.id = id;
        // The server's word on who asks, never the request's (FLOW.md §4): the connection's user.
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AllocRequest>) stamp_credentials(m.info, tool.connection.credentials);
        if constexpr (std::is_same_v<T, SessionCtrlRequest>) stamp_credentials(m.directives, tool.connection.credentials);
        if constexpr (std::is_same_v<T, SpawnRequest>) stamp_credentials(m.job_info, tool.connection.credentials);
      },
      msg);
  pending_.emplace(id, Pending{kind, from, cbfunc, cbdata});
  if (!tool.connection.admitted) {
    // A tool of a user not let in (docs/pmix-compat.md: 4.2.2 cannot refuse the connection
    // itself): each of its calls is refused, and never reaches the role.
    complete(pending_.extract(id).mapped(), Status::ErrNoPermissions, nullptr);
    return;
  }
  if (!accepting_ || !env_) {
    // The party is not up yet: refused, as a party not up refuses in the simulator.
    complete(pending_.extract(id).mapped(), Status::ErrUnreach, nullptr);
    return;
  }
  env_->deliver(from, std::move(msg));
}

bool PmixHost::answer(Address to, Message& msg) {
  const bool response = std::holds_alternative<AllocResponse>(msg) || std::holds_alternative<SessionCtrlResponse>(msg) ||
                        std::holds_alternative<SpawnResponse>(msg) || std::holds_alternative<ConnectResponse>(msg);
  if (!response) return false;
  auto it = pending_.find(message_id(msg));
  if (it == pending_.end() || it->second.from != to) return false;
  Pending p = it->second;
  pending_.erase(it);
  const Status status = std::visit(
      [](const auto& m) -> Status {
        if constexpr (requires { m.status; })
          return m.status;
        else
          return Status::Success;
      },
      msg);
  complete(p, status, &msg);
  return true;
}

void PmixHost::complete(Pending p, Status status, const Message* with) {
  const pmix_status_t rc = to_pmix(status);
  switch (p.kind) {
    case Answer::Spawn: {
      const auto* r = with ? std::get_if<SpawnResponse>(with) : nullptr;
      std::string nspace = r ? r->nspace : std::string();
      reinterpret_cast<pmix_spawn_cbfunc_t>(p.cbfunc)(rc, nspace.data(), p.cbdata);
      return;
    }
    case Answer::Info: {
      InfoList info;
      if (with) std::visit([&info](const auto& m) {
          if constexpr (requires { m.info; }) info = m.info;
        }, *with);
      PmixInfos out = to_pmix(info);
      if (out.empty()) {
        reinterpret_cast<pmix_info_cbfunc_t>(p.cbfunc)(rc, nullptr, 0, p.cbdata, nullptr, nullptr);
        return;
      }
      const auto handoff = out.release();
      reinterpret_cast<pmix_info_cbfunc_t>(p.cbfunc)(rc, handoff.info, handoff.ninfo, p.cbdata, &PmixInfos::release_cb,
                                                     handoff.release_cbdata);
      return;
    }
  }
}

bool PmixHost::push(Address tool, Message& msg) {
  auto it = tools_.find(tool);
  if (it == tools_.end()) return false;
  if (!it->second.talked) return hold(tool, msg);
  const pmix_proc_t me = to_pmix(options_.me);
  const pmix_proc_t target = to_pmix(it->second.proc);
  int code = kCarrierEvent;
  InfoList payload;
  if (auto* n = std::get_if<Notification>(&msg)) {
    code = static_cast<int>(n->code);
    payload = n->info;
    add_corr(payload, n->corr);
  } else if (carried(msg)) {
    payload = to_carrier(msg);
  } else {
    return false;
  }
  add_envelope(payload, {it->second.proc, options_.me, ++pushes_});
  const PmixInfos info = to_pmix(payload);
  return pmixflow_notify_proc(code, &me, &target, info.data(), info.size(), nullptr, nullptr) == PMIX_SUCCESS;
}

}  // namespace pmixflow::emul
