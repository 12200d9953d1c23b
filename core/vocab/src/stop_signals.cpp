#include "pmixflow/vocab/stop_signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pmixflow {

HeldSignals::HeldSignals(std::initializer_list<int> signals) {
  sigset_t set;
  sigemptyset(&set);
  for (int s : signals) sigaddset(&set, s);
  ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  fd_ = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd_ < 0) {
    const int e = errno;
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    throw std::runtime_error(std::string("cannot hold signals back (signalfd): ") + std::strerror(e));
  }
}

HeldSignals::~HeldSignals() {
  ::close(fd_);
  ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int HeldSignals::take() {
  signalfd_siginfo info{};
  return ::read(fd_, &info, sizeof info) == sizeof info ? static_cast<int>(info.ssi_signo) : 0;
}

std::string stopped_by(int signal) { return std::string("stopped by ") + ::strsignal(signal); }

}  // namespace pmixflow
