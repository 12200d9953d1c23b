// A party's PMIx, whatever its role: the one PMIx library of its process, as a server for the
// tools attached to it (the controller, a daemon; the scheduler through 4.2.2's launcher mode),
// as a tool attached to other servers (a requestor; the scheduler to its controller; the
// controller looking for its scheduler), or both. PMIx calls the host on its own threads: every
// up-call, callback and event is turned into a message for the role and posted to the party's
// loop (Env's contract); the role's answers go back through the callbacks PMIx gave.
//
// What crosses PMIx (docs/emulation.md, "Which call carries what"):
//   requestor -> server   PMIx_Allocation_request, PMIx_Session_control (compat.h), PMIx_Spawn;
//                         the answers through their callbacks; events (PMIX_DVM_IS_READY...)
//   scheduler -> ctrl     PMIx_Session_control; a tool connection declaring PMIX_SERVER_SCHEDULER;
//                         the answers to forwarded requests (carrier.hpp, up)
//   ctrl -> scheduler     forwarded requests and PMIX_SESSION_COMPLETE as events for the
//                         scheduler alone (carrier.hpp, down); PMIX_EVENT_NODE_DOWN
//   ctrl -> scheduler's server: the controller's tool connection looking for its scheduler
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pmixflow/emul/carrier.hpp"
#include "pmixflow/emul/directory.hpp"
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/emul/open_calls.hpp"
#include "pmixflow/proto/messages.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace pmixflow::emul {

class EmulEnv;
struct CallCtx;  // pmix_host_upcalls.hpp

struct PmixHostOptions {
  enum class Mode {
    Server,    // PMIx_server_init: the controller, a daemon
    Launcher,  // PMIx_tool_init as a launcher with a server module: the scheduler
    Tool,      // PMIx_tool_init: a requestor
  };
  Mode mode = Mode::Tool;
  Proc me;
  std::string dir;  // its own rendezvous directory (PMIX_SERVER_TMPDIR and PMIX_SYSTEM_TMPDIR)
  uid_t owner = 0;  // tools of this user may attach; so may those of `allowed`
  std::vector<uid_t> allowed;
};

class PmixHost {
 public:
  PmixHost(Loop& loop, Directory& directory, PmixHostOptions options);
  ~PmixHost();
  PmixHost(const PmixHost&) = delete;
  PmixHost& operator=(const PmixHost&) = delete;

  // Starts PMIx. Returns the URI tools attach to ("" for a plain tool). Throws
  // std::runtime_error naming the PMIx status when PMIx will not start.
  std::string start();
  void set_env(EmulEnv* env) { env_ = env; }
  // Finalizes PMIx (its rendezvous files go); answers every up-call still waiting first.
  void stop();
  // The role is up: calls that reach it from now on are handed to it (before, they are
  // refused PMIX_ERR_UNREACH, as a party not up refuses them).
  void accept() { accepting_ = true; }
  // The emulation's list of servers changed: a server this party was attached to that is gone
  // or elsewhere now is lost (4.2.2 tells a tool only of its primary server's loss).
  void servers_changed();
  // Attaches now to a server this tool will call, if it is up: a tool connects when it starts,
  // not at its first call (which would then also wait for the connection's set-up).
  void prepare(Address server) {
    if (started_ && options_.mode != PmixHostOptions::Mode::Server && directory_.server(server)) attach(server);
  }

  // Takes `msg` for `to` when PMIx carries it: an answer to one of `to`'s calls, a message for
  // a tool attached here, a call to a server. False when it cannot reach `to`.
  bool carry(Address to, Message& msg);
  // A party whose process ended, as its launcher says: a tool of ours or a server we attached to
  // is lost (once: PMIx may have said so already). 4.2.2 tells a tool-launcher nothing of its
  // own tools, a tool nothing of a server that is not its primary one, and a server not always
  // of a tool killed early in its life (docs/pmix-compat.md).
  void peer_gone(Address peer);
  // Something PMIx was asked for is not done yet (a call in flight, an up-call not answered).
  bool busy() const;
  std::uint64_t calls_made() const { return calls_made_; }

 private:
  friend struct PmixUpcalls;
  friend struct PmixReturns;
  // What a tool's connection says of it: its user and group as PMIx reports them, and whether
  // that user is let in.
  struct Connection {
    Credentials credentials;
    bool admitted = false;
  };
  struct Tool {
    Proc proc;
    Connection connection;
    // It made a call (or said it is ready): it has registered for events, so it may be pushed
    // to, and its going away is news for the role.
    bool talked = false;
  };
  enum class Answer { Info, Spawn };
  struct Pending {
    Answer kind;
    Address from;
    void* cbfunc;  // the up-call's callback, of the type `kind` says
    void* cbdata;
  };
  struct Attached {
    std::string uri;
    Proc proc;
  };

  // pmix_host.cpp: start and stop, event handlers
  void register_handlers();
  void on_event(int code, const Proc& source, InfoList payload, bool for_me);
  void on_lost(Proc who, bool from_launcher);
  // PMIx's report of one of `who`'s connections lost: true when another connection under that
  // name is still up, so that the report is not news of the tool there now.
  bool still_connected(const Proc& who);

  // pmix_host_server.cpp: up-calls in, answers and events out
  Address admit(const Proc& proc);
  void upcall(Address from, Message msg, Answer kind, void* cbfunc, void* cbdata);
  bool answer(Address to, Message& msg);
  bool push(Address tool, Message& msg);
  void heard_from(Address tool);
  void carried_in(Address from, Message msg);
  void take_upcall(Address from, Message msg, Answer kind, void* cbfunc, void* cbdata);
  // The loss of a requestor the launcher said was gone before it was heard from (peer_gone),
  // once what it sent before it went has been taken.
  void lost_after_its_calls(Address from);
  void complete(Pending p, Status status, const Message* with);

  // pmix_host_tool.cpp: attaching and calling
  bool attach(Address server);
  bool call(Address server, Message& msg);
  bool connect(Address server, ConnectRequest& req);
  void returned(Address server, Message msg);
  bool hold(Address to, Message& msg);

  Loop& loop_;
  Directory& directory_;
  PmixHostOptions options_;
  EmulEnv* env_ = nullptr;
  bool started_ = false;
  bool accepting_ = false;
  std::string uri_;
  // On the loop's thread only.
  std::map<Address, Tool> tools_;
  std::set<Address> left_;  // requestors gone, as their launcher says, before they were heard from
  // Tool connections by the name PMIx files them under (tool_connected's grant), less the losses
  // PMIx has reported: a name can be connected twice over, since 4.2.2 reports a loss a second
  // late (its event caching window) and a tool may take the name of one that has just gone
  // (a hand tool's --as, a requestor's next life).
  std::map<Proc, int> connections_;
  std::map<std::uint64_t, Pending> pending_;
  std::uint64_t next_id_ = 1;
  std::map<Address, Attached> attached_;
  std::optional<Address> primary_;  // where a tool's next call goes (PMIx_tool_set_server)
  // Messages for a tool that cannot take them yet: one that has not said it is ready for events,
  // or the scheduler the RM knows is up but which has not attached yet. Pushed when it is ready,
  // refused if it is not in time.
  std::map<Address, std::vector<Message>> held_;
  std::size_t calls_in_flight_ = 0;
  OpenCalls<CallCtx> open_calls_;
  std::uint64_t calls_made_ = 0;
  std::vector<std::size_t> handlers_;  // event handler registrations, made again on each attach
  std::uint64_t pushes_ = 0;           // this party's pushes so far (their envelopes' seq)
  std::map<Proc, Arrivals> arrived_;   // by sender: the pushes taken
  // Shared with PMIx's threads: credentials of tools by identity, known from their connection.
  mutable std::mutex mutex_;
  std::map<Proc, Connection> connected_;
  std::uint64_t refused_ = 0;  // connections given a name of their own (tool_connected)
};

}  // namespace pmixflow::emul
