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
// Party -> emulation, last frame: its counters (JSON object).
struct Bye {
  std::string stats_json;
};

using Frame = std::variant<Hello, Setup, Ready, Go, Servers, Inject, Event, StartDaemon, Activity, Stop, Bye>;

std::string encode(const Frame& f);
// Throws WireError on a frame encode() would not have written.
Frame decode(std::string_view bytes);

}  // namespace pmixflow::emul::control
