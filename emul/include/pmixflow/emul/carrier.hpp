// The flow's messages between the controller and the scheduler, as PMIx carries them over
// 4.2.2 (docs/pmix-compat.md): down, as an event for the scheduler alone (code
// kCarrierEvent); up, as a PMIx_Job_control marked as ours. Either way the message is a list
// of info items: a header of the project's own keys (which message, its handle, its
// correlation, and the fields PMIx has no key for) and then the message's own info under the
// PMIx keys it has - a forwarded request reaches the scheduler with PMIX_REQUESTOR,
// PMIX_ALLOC_NUM_NODES and the rest as real pmix_info_t items.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "pmixflow/proto/messages.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow::emul {

// A private event code (below PMIx's own range of named codes), and the header's first key.
inline constexpr int kCarrierEvent = -10301;
// Carried up by a tool that has attached and registered for events (4.2.2 passes a tool no event
// before its registration reaches the server): from then on its server may push to it. Taken by
// the server's host, never handed to a role.
inline constexpr Status kToolReady = static_cast<Status>(-10302);
inline constexpr std::string_view kCarrierKey = "pmixflow.msg";
// The correlation of a call made with PMIx's own API (PMIx_Allocation_request and the rest),
// carried as one more info item and taken off by the receiving server.
inline constexpr std::string_view kCorrKey = "pmixflow.corr";

// The messages the carrier takes: AllocRequest, AllocResponse, SessionCtrlRequest,
// SessionCtrlResponse, ConnectRequest, ConnectResponse, Notification.
bool carried(const Message& m);
InfoList to_carrier(const Message& m);
// nullopt when `items` is not a carried message (its first item is not kCarrierKey). Throws
// std::invalid_argument for a header that is ours but malformed.
std::optional<Message> from_carrier(const InfoList& items);

// Adds / takes off the kCorrKey item.
void add_corr(InfoList& info, const std::string& corr);
std::string take_corr(InfoList& info);

// Who a server's push (a carried message or a notification, sent as an event) is for, who sent
// it, and its place among the sender's pushes. 4.2.2 relays an event along every path it knows -
// a launcher to all its tools and to its own server, a tool to its own server and tools, with the
// relayer as the source and the range gone (compat.h) - so one push can reach parties it was not
// for, and its own party twice. The envelope travels in the payload, where no relay touches it.
struct Envelope {
  Proc to;
  Proc from;
  std::uint64_t seq = 0;
};
void add_envelope(InfoList& info, const Envelope& e);
// Takes the envelope's items off `info`; nullopt when they are missing or malformed.
std::optional<Envelope> take_envelope(InfoList& info);

// Which of one sender's pushes have arrived, so that each is taken once whatever path it took.
class Arrivals {
 public:
  // True the first time `seq` arrives.
  bool first(std::uint64_t seq);

 private:
  // Far more pushes than can be in flight at once: a gap older than this is taken as arrived.
  static constexpr std::uint64_t kWindow = 4096;
  std::uint64_t next_ = 1;          // every seq below it has arrived, but those in missing_
  std::set<std::uint64_t> missing_;  // below next_ and not yet arrived
};

}  // namespace pmixflow::emul
