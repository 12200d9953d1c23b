// Where events go as they are produced. A run hands every event to its EventLog, which passes
// it on to each sink that takes its kind: a log file, standard output, or a report being built
// in the same process. The log is never hidden under a temporary name: a reader may follow it
// while the run goes on, and tells a finished log from a cut one by its closing line.
#pragma once

#include <bitset>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/log/header.hpp"
#include "pmixflow/log/in_flight.hpp"
#include "pmixflow/log/record.hpp"

namespace pmixflow::log {

using KindSet = std::bitset<kKindCount>;
KindSet all_kinds_set();
KindSet kind_set(std::initializer_list<EventKind> kinds);

class EventSink {
 public:
  virtual ~EventSink() = default;
  // The kinds it takes; a log file takes them all, a report only those it reads.
  virtual KindSet kinds() const { return all_kinds_set(); }
  virtual void begin(const LogHeader& header) = 0;
  virtual void event(const EventView& e) = 0;
  // The closing line (kind log.end): nothing follows.
  virtual void end(const EventView& closing) = 0;
  // It records the log itself (a file): the closing line counts the events it was given.
  virtual bool records_log() const { return false; }
};

// The log as JSON Lines on a file (created or truncated) or on standard output ("-"). Lines
// are written in batches of whole lines, at least every `flush_every` of wall time while
// events keep coming, so that a reader following the file only ever sees whole lines behind
// the last newline. A path ending in ".gz" is written gzip-compressed (it cannot be followed;
// every reader of the project opens it as it is). A write that fails stops the sink (see
// failure()); it never throws from event(), which runs inside the roles.
// It writes the current version: a recv whose content is its send's is written short
// (InFlight), when the sink writes both kinds.
class LineSink final : public EventSink {
 public:
  explicit LineSink(std::string path, KindSet kinds = all_kinds_set(),
                    std::chrono::milliseconds flush_every = std::chrono::milliseconds(200));
  ~LineSink() override;
  LineSink(const LineSink&) = delete;
  LineSink& operator=(const LineSink&) = delete;

  void begin(const LogHeader& header) override;
  void event(const EventView& e) override;
  void end(const EventView& closing) override;
  KindSet kinds() const override { return kinds_; }
  bool records_log() const override { return true; }

  const std::string& path() const { return path_; }
  // Empty while every write succeeded; otherwise why the log is incomplete.
  const std::string& failure() const { return failure_; }

 private:
  void flush();
  void close_gz();
  void write_out(const char* data, std::size_t size);
  std::string_view time_text(double t);
  void render_send(const EventView& e, std::string_view t);
  void render_recv(const EventView& e, std::string_view t);
  void check_vouched(const EventView& e, std::string_view from);
  std::string path_;
  KindSet kinds_;
  bool short_recv_ = false;  // it writes sends and recvs: a recv may stand on its send
  InFlight in_flight_;
  std::uint64_t last_t_ = 0;  // the bits of the last time written
  std::string time_text_;     // that time, as written
  int fd_ = -1;
  bool owns_fd_ = false;
  void* gz_ = nullptr;  // zlib's gzFile, when compressing
  std::string buffer_;
  std::string failure_;
  std::chrono::milliseconds flush_every_;
  std::chrono::steady_clock::time_point last_flush_;
  std::uint32_t since_clock_check_ = 0;
};

// The fan-out a run writes to: the header first, then every event to the sinks that take its
// kind, then the closing line with the count of events and the environment's counters.
class EventLog {
 public:
  explicit EventLog(LogHeader header) : header_(std::move(header)) {}
  void attach(EventSink& sink);  // before begin()
  // A sink that goes before the log ends (the simulator's fault triggers, with its world) says
  // so: the closing line is not handed to it.
  void detach(const EventSink& sink);
  void begin();
  bool wants(EventKind kind) const { return wanted_[static_cast<std::size_t>(kind)]; }
  void write(const EventView& e);
  // The closing line: how the run ended and the environment's counters (a JSON object).
  void finish(double t, std::string_view end, std::string_view stats_json);
  // Events written to the sinks that record the whole log (0 when none does).
  std::uint64_t events() const { return events_; }
  const LogHeader& header() const { return header_; }

 private:
  struct Attached {
    EventSink* sink;
    KindSet kinds;
  };
  LogHeader header_;
  std::vector<Attached> sinks_;
  KindSet wanted_;
  KindSet counted_;  // the kinds a sink that records the log takes: the events the closing line counts
  std::uint64_t events_ = 0;
};

}  // namespace pmixflow::log
