// The emulator's own transport: framed messages over a stream socket. It carries the hop PRRTE
// carries over its own transport too (daemon <-> controller, its SCHED/SCHED_RESP tags), and each
// party's control line to the emulation that started it. An Endpoint says where: a Unix-domain
// socket on this machine (`unix:/path`), or TCP (`tcp:host:port`) for daemons that would run on
// other hosts (docs/emulation.md, "Beyond one machine"): which one is configuration, not code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pmixflow/emul/loop.hpp"

namespace pmixflow::emul {

// Owns one file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release();
  void reset();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct Endpoint {
  enum class Kind { Unix, Tcp };
  Kind kind = Kind::Unix;
  std::string path;  // Unix
  std::string host;  // TCP
  std::uint16_t port = 0;

  // "unix:/path/to/socket" or "tcp:HOST:PORT". Throws std::invalid_argument naming the text.
  static Endpoint parse(std::string_view text);
  std::string to_string() const;
};

// The largest frame a link takes: anything bigger is a peer gone wrong, and the link closes.
inline constexpr std::uint32_t kMaxFrame = 64u << 20;

// One connection, frame by frame: each frame is a 4-byte little-endian length and that many
// bytes. Frames are handed over on the loop's thread in the order they were sent; a frame that
// cannot be written at once is queued and written as the socket drains, so a send never blocks.
// The link's end is told once, from the loop, never from inside the call that found it. An owner
// never destroys a link from its own callbacks: it closes it, and lets it go later.
class FrameLink {
 public:
  using OnFrame = std::function<void(std::string&& frame)>;
  using OnClosed = std::function<void(const std::string& why)>;

  FrameLink(Loop& loop, UniqueFd fd, OnFrame on_frame, OnClosed on_closed);
  ~FrameLink();
  FrameLink(const FrameLink&) = delete;
  FrameLink& operator=(const FrameLink&) = delete;

  // False once the link is closed (the frame is not sent). Frames held before go first, in the
  // same write.
  bool send(std::string_view frame);
  // Keeps `frame` to go with the next send() or release(): what need not go at once (a party's
  // events) costs one write and one wake-up of the peer for many frames, not one each.
  bool hold(std::string_view frame);
  void release();
  std::size_t held_bytes() const { return held_.size(); }
  // Writes what is queued and held, blocking up to `timeout_ms` (a party saying goodbye).
  void flush(int timeout_ms);
  void close();
  bool open() const { return fd_.get() >= 0; }
  // The peer's user id, as the kernel knows it (Unix sockets only).
  std::optional<uid_t> peer_uid() const;
  std::uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  void readable();
  void writable();
  void write_queued();
  void fail(const std::string& why);

  Loop& loop_;
  UniqueFd fd_;
  WatchId watch_ = 0;
  OnFrame on_frame_;
  OnClosed on_closed_;
  std::string in_;
  std::string held_;  // framed, not yet queued
  std::deque<std::string> out_;
  std::size_t out_offset_ = 0;  // bytes of out_.front() already written
  std::uint64_t bytes_sent_ = 0;
  bool peer_gone_ = false;  // a write found it gone: what it sent is read, then the link closes
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for what it posts to its loop
};

// A listening socket; each accepted connection is handed over on the loop's thread. A Unix
// socket is created with mode 0600 inside a directory the caller keeps private.
class Listener {
 public:
  Listener(Loop& loop, const Endpoint& where, std::function<void(UniqueFd)> on_accept);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  // Where peers connect (for TCP, the port the kernel chose when 0 was asked for).
  const Endpoint& endpoint() const { return bound_; }

 private:
  Loop& loop_;
  UniqueFd fd_;
  WatchId watch_ = 0;
  Endpoint bound_;
  std::function<void(UniqueFd)> on_accept_;
};

// Connects to `where`, blocking up to `timeout_ms`. Throws std::system_error naming it.
UniqueFd connect_to(const Endpoint& where, int timeout_ms);

// A connected pair of Unix stream sockets, close-on-exec (a party's control line: one end is
// passed to the child across exec, the other kept).
std::pair<UniqueFd, UniqueFd> socket_pair();

}  // namespace pmixflow::emul
