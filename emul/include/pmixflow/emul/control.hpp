// What an emulation and each of its party processes say to each other on the party's control
// line (a FrameLink): the party's set-up and its go, where the servers are, the events the
// party logs, the daemons the controller wants started, whether the party is idle, and the
// end. Encoded with the wire codec (proto/wire.hpp): one byte of kind, then the fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pmixflow/emul/directory.hpp"
#include "pmixflow/proto/messages.hpp"

namespace pmixflow::emul::control {

// Party -> emulation, first frame: who it is.
struct Hello {
  std::int32_t pid = 0;
};
// Emulation -> party: its set-up (PartySpec as JSON).
struct Setup {
  std::string spec_json;
};
// Party -> emulation: its PMIx face is up (a server's URI; empty for a tool).
struct Ready {
  Proc proc;
  std::string uri;
};
// Emulation -> party: start the role now; the run's clock starts at `epoch_ns`.
struct Go {
  std::int64_t epoch_ns = 0;
};
// Emulation -> party: the servers there are now (the whole list, replacing the last).
struct Servers {
  std::vector<ServerEntry> entries;
};
// Emulation -> party: a message for the role that no party sent, as the launcher's word (a
// daemon that failed to start) or the OS's (a tool's process that ended).
struct Inject {
  Address from;
  Message msg;
};
// Party -> emulation: one event of the log, encoded (log/event_codec.hpp).
struct Event {
  std::string encoded;
};
// Controller -> emulation: start a daemon on this node (the launcher's job: PRRTE's plm).
struct StartDaemon {
  NodeId node = 0;
};
// Party -> emulation: it has nothing to do (no timer armed, nothing running, nothing pending)
// or it has again.
struct Activity {
  bool idle = false;
};
// Emulation -> party: finish up and exit.
struct Stop {};
// Party -> emulation, last frame: its counters (JSON object). Said as the party leaves, before
// its PMIx finalizes: a party that said it is going is not a party that died.
struct Bye {
  std::string stats_json;
};
// Emulation -> party: say where you stand (State), from your loop. `wave` numbers the
// emulation's rounds of asking every party (conductor_end.cpp); 0 asks for the clock alone.
struct Probe {
  std::uint64_t wave = 0;
};
// Party -> emulation, the answer to a Probe: whether it has nothing to do, how many messages it
// has sent and handled so far, how many of its own calls wait for an answer, and its clock: a
// promise that every event it logs from now on is stamped at or after `clock` (the events it
// logged before this frame went ahead of it on the same line).
struct State {
  std::uint64_t wave = 0;
  bool idle = false;
  std::uint64_t sent = 0;
  std::uint64_t handled = 0;
  std::uint64_t calls = 0;
  double clock = 0;
};
// Emulation -> requestor: leave at scenario time `at` (its requestor_exit), once every timer due
// before then has fired: the calls it makes up to its exit are made, as in the simulator.
struct Leave {
  double at = 0;
};

using Frame = std::variant<Hello, Setup, Ready, Go, Servers, Inject, Event, StartDaemon, Activity, Stop, Bye, Probe,
                           State, Leave>;

std::string encode(const Frame& f);
// Throws WireError on a frame encode() would not have written.
Frame decode(std::string_view bytes);

}  // namespace pmixflow::emul::control
