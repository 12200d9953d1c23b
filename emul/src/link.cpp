#include "pmixflow/emul/link.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace pmixflow::emul {
namespace {

[[noreturn]] void fail_errno(const std::string& what) { throw std::system_error(errno, std::generic_category(), what); }

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// A socket's address. A path longer than sockaddr_un holds (108 bytes: a deep $TMPDIR does it) is
// reached through its directory's descriptor, /proc/self/fd/N/NAME, which the kernel resolves
// as the long path: `dir` keeps that descriptor open for as long as the address is used.
sockaddr_un unix_address(const std::string& path, UniqueFd& dir) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::string use = path;
  if (path.size() >= sizeof a.sun_path) {
    const auto slash = path.rfind('/');
    dir = UniqueFd(::open(slash == 0 ? "/" : path.substr(0, slash).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir) fail_errno("opening the directory of " + path);
    use = "/proc/self/fd/" + std::to_string(dir.get()) + "/" + path.substr(slash + 1);
    if (use.size() >= sizeof a.sun_path) throw std::invalid_argument("socket name too long: " + path);
  }
  std::memcpy(a.sun_path, use.c_str(), use.size() + 1);
  return a;
}

// The first IPv4/IPv6 address of host:port.
sockaddr_storage tcp_address(const Endpoint& e, socklen_t& len) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(e.host.c_str(), std::to_string(e.port).c_str(), &hints, &found);
  if (rc != 0 || !found) throw std::invalid_argument(e.to_string() + ": " + ::gai_strerror(rc));
  sockaddr_storage out{};
  std::memcpy(&out, found->ai_addr, found->ai_addrlen);
  len = found->ai_addrlen;
  ::freeaddrinfo(found);
  return out;
}

std::uint32_t read_length(const std::string& in) {
  const auto* b = reinterpret_cast<const unsigned char*>(in.data());
  return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() { reset(); }

int UniqueFd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Endpoint Endpoint::parse(std::string_view text) {
  Endpoint e;
  if (text.starts_with("unix:") && text.size() > 5) {
    e.kind = Kind::Unix;
    e.path = std::string(text.substr(5));
    return e;
  }
  if (text.starts_with("tcp:")) {
    const auto rest = text.substr(4);
    const auto colon = rest.rfind(':');
    unsigned port = 0;
    if (colon != std::string_view::npos && colon > 0) {
      const auto digits = rest.substr(colon + 1);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
      if (ec == std::errc() && end == digits.data() + digits.size() && port <= 65535) {
        e.kind = Kind::Tcp;
        e.host = std::string(rest.substr(0, colon));
        e.port = static_cast<std::uint16_t>(port);
        return e;
      }
    }
  }
  throw std::invalid_argument("'" + std::string(text) + "' is not an endpoint: unix:PATH or tcp:HOST:PORT");
}

std::string Endpoint::to_string() const {
  return kind == Kind::Unix ? "unix:" + path : "tcp:" + host + ":" + std::to_string(port);
}

// ------------------------------------------------------------------------------------- FrameLink

FrameLink::FrameLink(Loop& loop, UniqueFd fd, OnFrame on_frame, OnClosed on_closed)
    : loop_(loop), fd_(std::move(fd)), on_frame_(std::move(on_frame)), on_closed_(std::move(on_closed)) {
  set_nonblocking(fd_.get());
  watch_ = loop_.watch(fd_.get(), [this] { readable(); });
}

FrameLink::~FrameLink() {
  if (watch_) loop_.unwatch(watch_);
}

bool FrameLink::hold(std::string_view frame) {
  if (!open() || peer_gone_) return false;
  const auto n = static_cast<std::uint32_t>(frame.size());
  for (int i = 0; i < 4; ++i) held_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  held_.append(frame);
  return true;
}

void FrameLink::release() {
  if (held_.empty() || !open() || peer_gone_) return;
  const bool was_idle = out_.empty();
  out_.push_back(std::exchange(held_, {}));
  if (was_idle) write_queued();
}

bool FrameLink::send(std::string_view frame) {
  if (!hold(frame)) return false;
  release();
  return open() && !peer_gone_;
}

void FrameLink::write_queued() {
  while (open() && !out_.empty()) {
    const std::string& front = out_.front();
    const ssize_t n = ::send(fd_.get(), front.data() + out_offset_, front.size() - out_offset_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        loop_.on_writable(watch_, [this] { writable(); });
        return;
      }
      // The peer has gone, and what it said before it went may still be unread - a party's
      // goodbye, say, which tells a party that left from one that died: it is read first, and
      // the end of the line closes the link as any other.
      if (int unread = 0; ::ioctl(fd_.get(), FIONREAD, &unread) == 0 && unread > 0) {
        peer_gone_ = true;
        out_.clear();
        out_offset_ = 0;
        loop_.on_writable(watch_, nullptr);
        return;
      }
      return fail(std::string("write: ") + std::strerror(errno));
    }
    bytes_sent_ += static_cast<std::uint64_t>(n);
    out_offset_ += static_cast<std::size_t>(n);
    if (out_offset_ == front.size()) {
      out_.pop_front();
      out_offset_ = 0;
    }
  }
  if (open()) loop_.on_writable(watch_, nullptr);
}

void FrameLink::writable() { write_queued(); }

void FrameLink::flush(int timeout_ms) {
  release();
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  while (open() && !out_.empty() && SteadyClock::now() < deadline) {
    pollfd p{fd_.get(), POLLOUT, 0};
    ::poll(&p, 1, 20);
    write_queued();
  }
}

void FrameLink::readable() {
  char buf[65536];
  while (open()) {
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n == 0) return fail("closed by the peer");
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      return fail(std::string("read: ") + std::strerror(errno));
    }
    in_.append(buf, static_cast<std::size_t>(n));
    while (open() && in_.size() >= 4) {
      const std::uint32_t len = read_length(in_);
      if (len > kMaxFrame)
        return fail("a frame of " + std::to_string(len) + " bytes (the peer is not speaking pmixflow)");
      if (in_.size() < 4 + std::size_t{len}) break;
      std::string frame = in_.substr(4, len);
      in_.erase(0, 4 + std::size_t{len});
      on_frame_(std::move(frame));
    }
  }
}

void FrameLink::fail(const std::string& why) {
  if (!open()) return;
  loop_.unwatch(watch_);
  watch_ = 0;
  fd_.reset();
  out_.clear();
  // Said after the call that found it has returned: a send that finds the peer gone must not
  // call back into its caller from inside the send (Env's contract, proto/env.hpp).
  if (!on_closed_) return;
  loop_.post([alive = std::weak_ptr<bool>(alive_), fn = on_closed_, why] {
    if (alive.lock()) fn(why);
  });
}

void FrameLink::close() {
  if (!open()) return;
  loop_.unwatch(watch_);
  watch_ = 0;
  fd_.reset();
  out_.clear();
}

std::optional<uid_t> FrameLink::peer_uid() const {
  // The kernel answers SO_PEERCRED on a TCP socket too, with uid -1: only a Unix socket knows.
  sockaddr_storage local{};
  socklen_t local_len = sizeof local;
  if (!open() || ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      local.ss_family != AF_UNIX)
    return std::nullopt;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (!open() || ::getsockopt(fd_.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return std::nullopt;
  return cred.uid;
}

// -------------------------------------------------------------------------------------- Listener

Listener::Listener(Loop& loop, const Endpoint& where, std::function<void(UniqueFd)> on_accept)
    : loop_(loop), bound_(where), on_accept_(std::move(on_accept)) {
  if (where.kind == Endpoint::Kind::Unix) {
    fd_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    UniqueFd dir;
    const sockaddr_un a = unix_address(where.path, dir);
    ::unlink(where.path.c_str());
    if (::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail_errno("bind " + where.path);
    // Private: only this user may connect (its directory is private too). Not by umask, which
    // is the whole process's while PMIx's threads run.
    ::chmod(where.path.c_str(), 0600);
  } else {
    socklen_t len = 0;
    const sockaddr_storage a = tcp_address(where, len);
    fd_ = UniqueFd(::socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    const int one = 1;
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&a), len) != 0) fail_errno("bind " + where.to_string());
    sockaddr_storage got{};
    socklen_t got_len = sizeof got;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&got), &got_len);
    bound_.port = ntohs(got.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&got)->sin_port
                                                 : reinterpret_cast<sockaddr_in6*>(&got)->sin6_port);
  }
  if (::listen(fd_.get(), 128) != 0) fail_errno("listen " + where.to_string());
  watch_ = loop_.watch(fd_.get(), [this] {
    while (true) {
      const int fd = ::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      on_accept_(UniqueFd(fd));
    }
  });
}

Listener::~Listener() {
  loop_.unwatch(watch_);
  if (bound_.kind == Endpoint::Kind::Unix) ::unlink(bound_.path.c_str());
}

UniqueFd connect_to(const Endpoint& where, int timeout_ms) {
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    UniqueFd fd;
    int rc = -1;
    if (where.kind == Endpoint::Kind::Unix) {
      fd = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      UniqueFd dir;
      const sockaddr_un a = unix_address(where.path, dir);
      rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a);
    } else {
      socklen_t len = 0;
      const sockaddr_storage a = tcp_address(where, len);
      fd = UniqueFd(::socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
      rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), len);
      const int one = 1;
      if (rc == 0) ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (rc == 0) return fd;
    // The listener may not be up yet: try again until the deadline.
    if ((errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN) || SteadyClock::now() >= deadline)
      fail_errno("connect " + where.to_string());
    ::usleep(5000);
  }
}

std::pair<UniqueFd, UniqueFd> socket_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) fail_errno("socketpair");
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace pmixflow::emul
