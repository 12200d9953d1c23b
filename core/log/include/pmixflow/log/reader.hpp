// Reading an event log, line by line, in constant memory whatever its size: the header is
// checked first (format and version), then every line is checked against the catalogue - its
// kind, its fields' types, the fields its kind always has, its time - whether or not the kind
// is asked for, so that every reader of pmixflow accepts and refuses the same logs; the events
// of the kinds asked for are handed over as EventViews. A line that cannot be read ends the
// reading: problem() names the file, the line and the field, and everything before it has been
// delivered. A log that merely stops early (cut()) may be taken as far as it goes; a bad line
// never is (check_whole()).
//
// Versions 2 and 3 are read alike: a short recv of a version 3 log (its content left to its
// send, InFlight) is delivered whole, as version 2 wrote it, rebuilt from the send line the
// reader remembers until its receipt.
#pragma once

#include <array>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/log/header.hpp"
#include "pmixflow/log/in_flight.hpp"
#include "pmixflow/log/json_scan.hpp"
#include "pmixflow/log/record.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::log {

// The longest line a log may hold. The longest a run writes is a grant's or an instantiation's
// node list for a whole machine ("n012345:64," a node: some 1.1 MB at the 100,000 nodes the
// simulator is measured at) or a header whose hostfile names as many irregular hosts; a
// scenario's own lines (a call's info) stay far below. Past it, a line that never ends - a
// sparse file, a stream of bytes - is refused where it passes the limit, not read into memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;
// The latest time an event may have, in seconds: about 31,700 years. Every time an input gives
// is at most 2^32-1 s (kMaxSeconds, about 136 years), so a run reaches this only on inputs no
// machine has: it bounds nonsense (1e308, a negative time), where a double still tells apart
// times a fifth of a millisecond apart.
inline constexpr double kMaxEventTime = 1e12;

class LineSource;

// A log followed before its header line is written whole: the run is starting.
class LogNotStarted : public InputError {
 public:
  using InputError::InputError;
};

struct ReadOptions {
  // Only these kinds are delivered; the others are checked all the same, and passed over.
  KindSet kinds = all_kinds_set();
  // Refuse kinds and fields the catalogue does not describe (otherwise they are passed over:
  // a newer pmixflow may add some without changing the version).
  bool strict = false;
  // Read a log that is still being written: at the end of the file, and before a last line
  // that has no newline yet, next() returns nullptr with waiting() true instead of reporting a
  // cut log; a later next() reads on from there. A pipe ("-") cannot be followed.
  bool follow = false;
};

class LogReader {
 public:
  // Opens `path` ("-": standard input) and reads its header. Throws InputError when the file
  // cannot be read or is not a log this pmixflow reads; a path that is not a regular file (a
  // named pipe, a directory, a device, a loop of symbolic links) before anything opens it.
  explicit LogReader(std::string path, ReadOptions options = {});
  ~LogReader();
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  const LogHeader& header() const { return header_; }
  // From now on, only these kinds are delivered (what to read may depend on the header).
  void only(KindSet kinds) { options_.kinds = kinds; }
  // The next event of a kind asked for, the closing line included; nullptr once there is none
  // (then complete() or problem() says why). The view lives until the next call.
  const EventView* next();
  // The text of the line of the last event delivered, without its newline; a short recv's
  // as written whole (as version 2 has it).
  std::string_view text() const { return text_; }

  // The line of the send a short recv was rebuilt from, when the last event delivered is one.
  std::optional<std::uint64_t> send_line() const { return send_line_; }

  // Following: the end of what has been written so far was reached; call next() again later.
  bool waiting() const { return waiting_; }
  // The byte offset in the file of the line of the last event delivered (the header: 0).
  std::uint64_t offset() const { return offset_; }

  // The closing line was read, and nothing follows it: the log is whole.
  bool complete() const { return complete_; }
  const std::optional<InputError>& problem() const { return problem_; }
  // The problem is that the log stops early - no closing line, or a last line without its
  // newline - which a reader asked for what is there (--partial, the viewer) may accept.
  bool cut() const { return cut_; }
  // Once next() has given nullptr: throws the problem, naming the last good line, unless the
  // log is whole, or merely cut and `partial`; `hint` says how to take a cut log as it is.
  void check_whole(bool partial, std::string_view hint = {}) const;
  const std::string& path() const { return path_; }
  std::uint64_t line() const { return line_; }  // of the last line read, the header being line 1
  // The last line read whole and well, the header being 1: where a cut log stops being readable.
  std::uint64_t last_good_line() const { return good_line_; }
  // Lines of kinds the catalogue does not know, passed over (not strict).
  std::uint64_t unknown_kinds() const { return unknown_kinds_; }

 private:
  bool read_line();
  bool parse(std::string_view line);
  bool stop(const std::string& field, const std::string& what);
  bool check_fields(EventKind kind, double when, const detail::Member* t, const detail::Member* who);
  bool wanted(EventKind kind) const { return options_.kinds[static_cast<std::size_t>(kind)]; }
  enum class Hop { Whole, Rebuilt, Failed };
  Hop recv_line(std::string_view line, const detail::Member& t, const detail::Member& who);
  void remember_send(std::string_view line, const detail::Member& who);

  std::string path_;
  ReadOptions options_;
  // The file, closed by its own destructor: also when the constructor throws (a foreign or
  // empty file), which no ~LogReader() would see.
  struct Handles {
    std::FILE* file = nullptr;
    bool owns_file = false;
    Handles() = default;
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
    ~Handles();
  };
  Handles io_;
  std::unique_ptr<LineSource> lines_;
  std::string_view text_;
  LogHeader header_;
  std::uint64_t line_ = 0;
  std::uint64_t good_line_ = 0;
  std::uint64_t unknown_kinds_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t next_offset_ = 0;
  bool complete_ = false;
  bool cut_ = false;
  bool done_ = false;
  bool waiting_ = false;
  std::optional<InputError> problem_;
  // The current event.
  EventView view_;
  std::array<FieldValue, kMaxFields> values_{};
  std::vector<detail::Member> members_;
  std::deque<std::string> decoded_;
  // Version 3: the sends not yet received, and the last short recv rebuilt.
  InFlight in_flight_;
  std::string rebuilt_;
  std::optional<std::uint64_t> send_line_;
};

// A recv line as version 2 wrote it: `recv` itself when it is whole, else made whole from the
// line of its send (LogReader::send_line()); nothing when either is not such a line.
std::optional<std::string> whole_recv(std::string_view recv, std::string_view send);

}  // namespace pmixflow::log
