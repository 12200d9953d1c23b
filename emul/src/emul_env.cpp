#include "pmixflow/emul/emul_env.hpp"

#include "pmixflow/log/event_codec.hpp"
#include "pmixflow/proto/hop.hpp"
#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

bool is_notice(const Message& m) {
  return std::holds_alternative<Unreachable>(m) || std::holds_alternative<PeerLost>(m);
}

}  // namespace

EmulEnv::EmulEnv(Loop& loop, const RunClock& clock, Address self, Directory& directory, Transport& transport,
                 Uplink& uplink, log::KindSet wanted)
    : loop_(loop),
      clock_(clock),
      self_(self),
      directory_(directory),
      transport_(transport),
      uplink_(uplink),
      wanted_(wanted) {}

void EmulEnv::send(Address to, Message msg) {
  ++sent_;
  // What the message costs on the wire is what the emulator's own encoding of it takes; PMIx
  // packs the same fields about as densely.
  if (wants(log::EventKind::Send)) log(send_event(name_of(to), msg, encode_message(msg).size()));
  const MessageKind kind = kind_of(msg);
  const std::uint64_t id = message_id(msg);
  const std::string* corr = message_corr(msg);
  std::string corr_copy = corr ? *corr : std::string();
  if (transport_.carry(to, msg) || is_notice(msg)) return;
  notice(to, Unreachable{to, kind, id, std::move(corr_copy)});
}

void EmulEnv::notice(Address from, Message msg) {
  loop_.post([this, from, msg = std::move(msg)]() mutable { deliver(from, std::move(msg)); });
}

void EmulEnv::start() {
  started_ = true;
  if (role_) role_->start();
  for (auto& [from, msg] : std::exchange(early_, {})) deliver(from, std::move(msg));
}

void EmulEnv::deliver(Address from, Message msg) {
  if (!started_) {
    early_.emplace_back(from, std::move(msg));
    return;
  }
  uplink_.working();
  ++handled_;
  if (wants(log::EventKind::Recv)) log(recv_event(name_of(from), msg, encode_message(msg).size()));
  if (role_) role_->handle(from, std::move(msg));
}

TimerId EmulEnv::after(double delay, std::function<void()> fn) {
  const TimerId id = next_timer_++;
  const double due = now() + std::max(0.0, delay);
  const LoopTimer t = loop_.after(clock_.wall(delay), [this, id, due, fn = std::move(fn)] {
    timers_.erase(id);
    if (timer_label_.empty()) timer_label_ = "a timer of " + std::string(name_of(self_));
    lateness_.add(due, now() - due, timer_label_);
    fn();
  });
  timers_.emplace(id, t);
  return id;
}

void EmulEnv::cancel(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  loop_.cancel(it->second);
  timers_.erase(it);
}

void EmulEnv::record(const log::EventBuilder& event) {
  // Stamped on the loop's thread, in the order logged: the party's events leave in time order,
  // which the emulation's merge counts on (event_merge.hpp).
  last_stamp_ = clock_floor();
  uplink_.event(log::encode_event(event.view(last_stamp_, name_of(self_))));
}

}  // namespace pmixflow::emul
