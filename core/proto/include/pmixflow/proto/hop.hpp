// The hop records both environments write for every message: `send` when it leaves a party,
// `recv` when it is handed to the party it was for. What a message costs on the wire is the
// environment's to say (`bytes`).
#pragma once

#include <cstdint>
#include <string_view>

#include "pmixflow/log/events.hpp"
#include "pmixflow/proto/messages.hpp"

namespace pmixflow {

// The events point into `m`, which must outlive their logging.
ev::Send send_event(std::string_view to, const Message& m, std::uint64_t bytes);
ev::Recv recv_event(std::string_view from, const Message& m, std::uint64_t bytes);

}  // namespace pmixflow
