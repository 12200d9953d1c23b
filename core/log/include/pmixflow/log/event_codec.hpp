// Log events in binary, for the emulator's parties, which hand their events to the
// orchestrator process that writes the one log. The encoding:
//
//   u8 EventKind, f64 t (bit for bit), string who, u8 value count,
//   then per value: u8 index of its alternative in FieldValue, then the value
//   (strings and JSON text as u32 length + bytes, Status as i32)
//
// Both ends hold the catalogue to it: a known kind, one value per field of the kind, each of
// the field's type or absent. Anything else is refused with an EventCodecError naming the
// byte offset, by the encoder as by the decoder, so that a producer's mistake is caught in the
// process that made it.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/log/record.hpp"

namespace pmixflow::log {

class EventCodecError : public std::runtime_error {
 public:
  EventCodecError(const std::string& what, std::size_t offset);
  std::size_t offset() const { return offset_; }  // in the bytes being read (or written)

 private:
  std::size_t offset_;
};

std::string encode_event(const EventView& e);

// A decoded event, owning the bytes its views point into. Moving it moves them without
// relocating them, so the views stay valid; a copy points its views into its own bytes.
class DecodedEvent {
 public:
  DecodedEvent() = default;
  DecodedEvent(const DecodedEvent& o);
  DecodedEvent& operator=(const DecodedEvent& o);
  DecodedEvent(DecodedEvent&& o) noexcept;
  DecodedEvent& operator=(DecodedEvent&& o) noexcept;
  ~DecodedEvent() = default;

  // Valid as long as this event, wherever it is moved.
  EventView view() const { return EventView{t_, who_, kind_, {values_.data(), count_}}; }

 private:
  friend DecodedEvent decode_event(std::string_view bytes);

  // A vector, not a string: a string's short buffer would move with it and leave the views
  // behind.
  std::vector<char> bytes_;
  double t_ = 0;
  std::string_view who_;
  EventKind kind_ = EventKind::LogEnd;
  std::array<FieldValue, kMaxFields> values_{};
  std::size_t count_ = 0;
};

DecodedEvent decode_event(std::string_view bytes);

}  // namespace pmixflow::log
