// A party's PMIx tool side: attaching to the servers it calls, its calls, and their answers.
#include "pmix_host_upcalls.hpp"
#include "pmixflow/emul/carrier.hpp"
#include "pmixflow/emul/emul_env.hpp"
#include "pmixflow/emul/pmix_info.hpp"

namespace pmixflow::emul {

namespace {

// How long a party waits for a server to take its connection, and for a scheduler the RM
// found to attach back.
constexpr int kAttachTimeoutS = 5;
constexpr auto kHoldFor = std::chrono::seconds(5);

// The library saying the connection is gone, not the server answering: a call in flight when it
// goes is completed PMIX_ERR_COMM_FAILURE (the zero-byte reply of src/common/pmix_alloc.c,
// pmix_control.c, pmix_session.c), one the library has not sent yet PMIX_ERR_LOST_CONNECTION.
// No party of the flow answers either.
bool lost(pmix_status_t rc) { return rc == PMIX_ERR_LOST_CONNECTION || rc == PMIX_ERR_COMM_FAILURE; }

}  // namespace

struct PmixReturns {
  // The context of a call PMIx answers, taken from its host: none when the host has stopped, or
  // for a second completion of a call already answered.
  static std::unique_ptr<CallCtx> answered(void* cbdata) {
    // A call PMIx failed because a connection went may still be answered by its server
    // (compat.h): that reply must not reach the library's freed record of the call. After a
    // real reply, harmless.
    pmixflow_disarm_reply(cbdata);
    PmixHost* h = PmixUpcalls::active();
    return h ? h->open_calls_.answer(cbdata) : nullptr;
  }
  static void info(pmix_status_t rc, pmix_info_t* info, size_t ninfo, void* cbdata, pmix_release_cbfunc_t release,
                   void* release_data) {
    std::unique_ptr<CallCtx> ctx = answered(cbdata);
    if (!ctx) {  // the host has stopped, or the call was answered already
      if (release) release(release_data);
      return;
    }
    InfoList got;
    try {
      got = from_pmix(info, ninfo);
    } catch (const std::exception&) {
      rc = PMIX_ERR_BAD_PARAM;  // an answer the flow cannot read is no answer
    }
    if (release) release(release_data);
    deliver(std::move(ctx), rc, std::move(got), {});
  }
  static void spawned(pmix_status_t rc, char nspace[], void* cbdata) {
    std::unique_ptr<CallCtx> ctx = answered(cbdata);
    if (!ctx) return;
    deliver(std::move(ctx), rc, {}, nspace ? std::string(nspace) : std::string());
  }
  static void deliver(std::unique_ptr<CallCtx> ctx, pmix_status_t rc, InfoList info, std::string nspace) {
    PmixHost* h = PmixUpcalls::active();
    if (!h || h != ctx->host) return;  // the host has stopped: nobody waits any more
    Message msg;
    const Status st = from_pmix_status(rc);
    if (lost(rc) && info.empty())
      msg = Unreachable{ctx->server, ctx->kind, ctx->id, ctx->corr};
    else if (ctx->kind == MessageKind::AllocRequest)
      msg = AllocResponse{ctx->id, st, std::move(info), ctx->corr};
    else if (ctx->kind == MessageKind::SessionCtrlRequest)
      msg = SessionCtrlResponse{ctx->id, st, std::move(info), ctx->corr};
    else if (ctx->kind == MessageKind::SpawnRequest)
      msg = SpawnResponse{ctx->id, st, std::move(nspace), {}, ctx->corr};
    else if (rc != PMIX_SUCCESS && ctx->kind == MessageKind::ConnectRequest)
      msg = Unreachable{ctx->server, ctx->kind, ctx->id, ctx->corr};  // the declaration never got there
    else
      return;  // carried up (carrier.hpp): its answer, if it has one, comes down on its own
    h->loop_.post([h, server = ctx->server, msg = std::move(msg)]() mutable { h->returned(server, std::move(msg)); });
  }
};

namespace {

// What PMIx is given for the call: kept in its context until the answer (PMIx may read it until
// then). False for a message no call carries.
bool load_call(const Message& msg, CallCtx& ctx) {
  const auto with_corr = [](InfoList info, const std::string& corr) {
    add_corr(info, corr);
    return to_pmix(info);
  };
  if (const auto* a = std::get_if<AllocRequest>(&msg)) {
    ctx.info = with_corr(a->info, a->corr);
  } else if (const auto* s = std::get_if<SessionCtrlRequest>(&msg)) {
    ctx.info = with_corr(s->directives, s->corr);
  } else if (const auto* sp = std::get_if<SpawnRequest>(&msg)) {
    ctx.info = with_corr(sp->job_info, sp->corr);
    ctx.apps = to_pmix(std::span<const App>(sp->apps));
  } else if (carried(msg)) {
    ctx.info = to_pmix(to_carrier(msg));
  } else {
    return false;
  }
  return true;
}

pmix_status_t issue_call(const Message& msg, CallCtx& ctx) {
  pmix_info_t* info = ctx.info.data();
  if (const auto* a = std::get_if<AllocRequest>(&msg))
    return PMIx_Allocation_request_nb(to_pmix(a->directive), info, ctx.info.size(), &PmixReturns::info, &ctx);
  if (const auto* s = std::get_if<SessionCtrlRequest>(&msg))
    return pmixflow_Session_control_nb(s->session_id, info, ctx.info.size(), &PmixReturns::info, &ctx);
  if (std::holds_alternative<SpawnRequest>(msg))
    return PMIx_Spawn_nb(info, ctx.info.size(), ctx.apps.data(), ctx.apps.size(), &PmixReturns::spawned, &ctx);
  return PMIx_Job_control_nb(nullptr, 0, info, ctx.info.size(), &PmixReturns::info, &ctx);
}

}  // namespace

bool PmixHost::attach(Address server) {
  const ServerEntry* entry = directory_.server(server);
  if (!entry) return false;
  if (auto it = attached_.find(server); it != attached_.end() && it->second.uri == entry->uri) return true;
  attached_.erase(server);
  if (primary_ == server) primary_.reset();
  InfoList l;
  l.add(PMIX_SERVER_URI, entry->uri).add(PMIX_TIMEOUT, std::int32_t{kAttachTimeoutS});
  // A server attaching to another must not make it its primary server: its own client calls
  // would then leave it (PRRTE's pmix_server.c says the same).
  l.add(PMIX_PRIMARY_SERVER, options_.mode != PmixHostOptions::Mode::Server);
  const PmixInfos info = to_pmix(l);
  pmix_proc_t got;
  const pmix_status_t rc =
      PMIx_tool_attach_to_server(nullptr, &got, const_cast<pmix_info_t*>(info.data()), info.size());
  if (rc != PMIX_SUCCESS) return false;
  pmixflow_tcp_nodelay();
  attached_[server] = Attached{entry->uri, from_pmix(got)};
  if (options_.mode != PmixHostOptions::Mode::Server) {
    primary_ = server;
    try {
      register_handlers();
    } catch (const std::runtime_error&) {
      return false;  // a server that will not pass us events cannot carry our calls' events either
    }
    // The scheduler's line to the RM carries events down from the start: it says it can take them.
    if (options_.mode == PmixHostOptions::Mode::Launcher && server == Address::controller()) {
      Message ready = Notification{kToolReady, {}, {}};
      call(server, ready);
    }
  }
  return true;
}

bool PmixHost::call(Address server, Message& msg) {
  if (!attach(server)) return false;
  if (primary_ != server) {
    const pmix_proc_t proc = to_pmix(attached_[server].proc);
    if (PMIx_tool_set_server(&proc, nullptr, 0) != PMIX_SUCCESS) return false;
    primary_ = server;
  }
  auto ctx = std::make_unique<CallCtx>(CallCtx{this, server, message_id(msg), kind_of(msg), {}, {}, {}});
  if (const std::string* corr = message_corr(msg)) ctx->corr = *corr;
  if (!load_call(msg, *ctx)) return false;
  // Open before PMIx has it: its answer may come on PMIx's thread before the call returns.
  CallCtx* open = open_calls_.open(std::move(ctx));
  if (issue_call(msg, *open) != PMIX_SUCCESS) {
    open_calls_.forget(open);
    return false;
  }
  ++calls_in_flight_;
  ++calls_made_;
  return true;
}

bool PmixHost::connect(Address server, ConnectRequest& req) {
  // The connection is the call: a tool attaching (the RM looking for its scheduler), and for
  // the scheduler its declaration, which 4.2.2 does not carry (compat.h): said in a message.
  if (!attach(server)) return false;
  if (!req.info.flag(PMIX_SERVER_SCHEDULER)) {
    loop_.post([this, server, id = req.id] { returned(server, ConnectResponse{id, Status::Success}); });
    ++calls_in_flight_;
    return true;
  }
  Message msg = req;
  return call(server, msg);
}

void PmixHost::returned(Address server, Message msg) {
  if (calls_in_flight_ > 0) --calls_in_flight_;
  if (env_) env_->deliver(server, std::move(msg));
}

bool PmixHost::hold(Address to, Message& msg) {
  const bool expected = tools_.count(to) || (to == Address::scheduler() && directory_.server(to));
  if (!expected) return false;
  auto& queue = held_[to];
  queue.push_back(std::move(msg));
  if (queue.size() == 1)
    loop_.after(kHoldFor, [this, to] {
      auto held = held_.extract(to);
      if (held.empty() || !env_) return;
      for (auto& m : held.mapped()) {
        const std::string* corr = message_corr(m);
        env_->notice(to, Unreachable{to, kind_of(m), message_id(m), corr ? *corr : std::string()});
      }
    });
  return true;
}

void PmixHost::servers_changed() {
  std::vector<Address> gone;
  for (const auto& [a, at] : attached_) {
    const ServerEntry* e = directory_.server(a);
    if (!e || e->uri != at.uri) gone.push_back(a);
  }
  for (Address a : gone) {
    attached_.erase(a);
    if (primary_ == a) primary_.reset();
    if (env_) env_->deliver(a, PeerLost{a});
  }
  // The scheduler's line to the RM: attached as soon as the RM is there, whoever connects to
  // whom in the flow (the RM's connection to its scheduler travels on it).
  if (options_.mode == PmixHostOptions::Mode::Launcher && directory_.server(Address::controller()))
    attach(Address::controller());
}

}  // namespace pmixflow::emul
