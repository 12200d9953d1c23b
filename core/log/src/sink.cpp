#include "pmixflow/log/sink.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "pmixflow/log/events.hpp"
#include "pmixflow/log/render.hpp"
#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow::log {
namespace {
constexpr std::size_t kBatch = 64 * 1024;
constexpr std::uint32_t kClockCheckEvery = 256;  // events between two looks at the clock
}  // namespace

KindSet all_kinds_set() { return KindSet().set(); }

KindSet kind_set(std::initializer_list<EventKind> kinds) {
  KindSet set;
  for (EventKind k : kinds) set.set(static_cast<std::size_t>(k));
  return set;
}

LineSink::LineSink(std::string path, KindSet kinds, std::chrono::milliseconds flush_every)
    : path_(std::move(path)),
      kinds_(kinds),
      short_recv_(kinds[static_cast<std::size_t>(EventKind::Send)] && kinds[static_cast<std::size_t>(EventKind::Recv)]),
      flush_every_(flush_every),
      last_flush_(std::chrono::steady_clock::now()) {
  if (path_ == "-") {
    fd_ = STDOUT_FILENO;
    return;
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path_ + ": cannot write: " + std::strerror(errno));
  owns_fd_ = true;
  buffer_.reserve(kBatch + 4096);
  if (path_.size() > 3 && path_.ends_with(".gz")) {
    // Level 1: the log compresses about tenfold even so, at a fraction of the CPU of the
    // default level, which would cost more than writing the log itself.
    gz_ = gzdopen(fd_, "wb1");
    if (!gz_) throw std::runtime_error(path_ + ": cannot compress");
    owns_fd_ = false;  // gzclose closes it
  }
}

LineSink::~LineSink() {
  // A run that stops before the closing line leaves what it wrote: a cut log, which readers
  // recognise by the missing closing line.
  flush();
  close_gz();
  if (owns_fd_) ::close(fd_);
}

// gzclose writes the gzip trailer: done once the closing line is out, so that a failure there
// is known before the run reports its log written.
void LineSink::close_gz() {
  if (!gz_) return;
  if (gzclose(static_cast<gzFile>(gz_)) != Z_OK && failure_.empty()) failure_ = path_ + ": write failed";
  gz_ = nullptr;
  fd_ = -1;  // closed with it: nothing may be written after the closing line
}

void LineSink::begin(const LogHeader& header) {
  buffer_ += render_header(header);
  flush();  // a follower learns at once what it is reading
}

// Events come in bursts at one instant (a grant's node lines, a launch's sends): the time is
// spelled once per instant, the shortest round trip of a double being the costly part of a
// short line.
std::string_view LineSink::time_text(double t) {
  // Bit for bit: -0 is not spelled as 0.
  if (std::bit_cast<std::uint64_t>(t) != last_t_ || time_text_.empty()) {
    last_t_ = std::bit_cast<std::uint64_t>(t);
    time_text_.clear();
    json_number_into(time_text_, t);
  }
  return time_text_;
}

void LineSink::event(const EventView& e) {
  const std::string_view t = time_text(e.t);
  if (short_recv_ && e.kind == EventKind::Send) {
    render_send(e, t);
  } else if (short_recv_ && e.kind == EventKind::Recv) {
    render_recv(e, t);
  } else {
    render_envelope(buffer_, e, t);
    render_fields(buffer_, e);
    buffer_ += "}\n";
  }
  if (buffer_.size() >= kBatch) return flush();
  if (++since_clock_check_ < kClockCheckEvery) return;
  since_clock_check_ = 0;
  if (std::chrono::steady_clock::now() - last_flush_ >= flush_every_) flush();
}

// `to` is a send's first field, `from` a recv's: what follows it is the message's content,
// the same in both when the message arrived as it left.
void LineSink::render_send(const EventView& e, std::string_view t) {
  render_envelope(buffer_, e, t);
  render_fields(buffer_, e, 0, 1);
  const std::size_t tail = buffer_.size();
  render_fields(buffer_, e, 1);
  if (const auto to = e.str(Field::to))
    in_flight_.sent(e.who, *to, e.uint(Field::id), std::string_view(buffer_).substr(tail), 0, e.message);
  buffer_ += "}\n";
}

// A recv the environment vouches for is judged by its send's content, already rendered, and
// is rendered itself only when written whole: most are written short.
void LineSink::render_recv(const EventView& e, std::string_view t) {
  render_envelope(buffer_, e, t);
  render_fields(buffer_, e, 0, 1);
  const std::size_t tail = buffer_.size();
  const auto from = e.str(Field::from);
  const auto id = e.uint(Field::id);
  std::optional<bool> written_short;
  if (from && e.message) {
    check_vouched(e, *from);
    written_short = in_flight_.received_as(*from, e.who, id, e.message);
  }
  if (!written_short || !*written_short) render_fields(buffer_, e, 1);
  if (!written_short)
    written_short = from && in_flight_.received(*from, e.who, id, std::string_view(buffer_).substr(tail));
  if (*written_short) {
    // Its send says the rest; the id stays, to find that send among those of the same pair.
    buffer_.resize(tail);
    if (id) render_uint_field(buffer_, Field::id, *id);
  }
  buffer_ += "}\n";
}

// What makes a short line safe is the environment's word that the recv is its send: a build
// with assertions holds it to that word, rendering the recv anyway.
void LineSink::check_vouched([[maybe_unused]] const EventView& e, [[maybe_unused]] std::string_view from) {
#ifndef NDEBUG
  const auto sent = in_flight_.tail_of(from, e.who, e.message);
  if (!sent) return;
  std::string own;
  render_fields(own, e, 1);
  if (own == *sent) return;
  // A broken promise of the environment's, not bad input: stop here, loudly (the sink is
  // called from inside the simulation, where nothing may unwind).
  std::fprintf(stderr, "pmixflow: internal error: recv vouched for as message %llu differs from its send: %s / %.*s\n",
               static_cast<unsigned long long>(e.message), own.c_str(), static_cast<int>(sent->size()), sent->data());
  std::abort();
#endif
}

void LineSink::end(const EventView& closing) {
  render_line(buffer_, closing);
  flush();
  close_gz();
}

void LineSink::flush() {
  last_flush_ = std::chrono::steady_clock::now();
  if (!failure_.empty()) {
    buffer_.clear();
    return;
  }
  write_out(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void LineSink::write_out(const char* data, std::size_t size) {
  if (gz_) {
    auto* gz = static_cast<gzFile>(gz_);
    // Flushed to a whole block each time, as the plain log is: what was written is readable
    // even if the run is cut afterwards.
    if (size > 0 && (gzwrite(gz, data, static_cast<unsigned>(size)) == 0 || gzflush(gz, Z_SYNC_FLUSH) != Z_OK)) {
      int code = 0;
      failure_ = path_ + ": write failed: " + gzerror(gz, &code);
    }
    return;
  }
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd_, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure_ = path_ + ": write failed: " + std::strerror(errno);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
}

void EventLog::attach(EventSink& sink) {
  const KindSet kinds = sink.kinds();
  sinks_.push_back(Attached{&sink, kinds});
  wanted_ |= kinds;
  if (sink.records_log()) counted_ |= kinds;
}

void EventLog::detach(const EventSink& sink) {
  std::erase_if(sinks_, [&sink](const Attached& a) { return a.sink == &sink; });
  wanted_ = counted_ = KindSet{};
  for (const auto& a : sinks_) {
    wanted_ |= a.kinds;
    if (a.sink->records_log()) counted_ |= a.kinds;
  }
}

void EventLog::begin() {
  for (auto& a : sinks_) a.sink->begin(header_);
}

void EventLog::write(const EventView& e) {
  const auto k = static_cast<std::size_t>(e.kind);
  for (auto& a : sinks_)
    if (a.kinds[k]) a.sink->event(e);
  if (counted_[k]) ++events_;
}

void EventLog::finish(double t, std::string_view end, std::string_view stats_json) {
  EventBuilder b(EventKind::LogEnd);
  fill(ev::LogEnd{.end = end, .events = events_, .stats = stats_json}, b);
  const EventView closing = b.view(t, "run");
  for (auto& a : sinks_) a.sink->end(closing);
}

}  // namespace pmixflow::log
