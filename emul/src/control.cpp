#include "pmixflow/emul/control.hpp"

#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul::control {
namespace {

void put(WireWriter& w, const Hello& f) { w.i32(f.pid); }
void put(WireWriter& w, const Setup& f) { w.str(f.spec_json); }
void put(WireWriter& w, const Ready& f) {
  w.proc(f.proc);
  w.str(f.uri);
}
void put(WireWriter& w, const Go& f) { w.i64(f.epoch_ns); }
void put(WireWriter& w, const Servers& f) {
  w.count(f.entries.size());
  for (const auto& e : f.entries) {
    w.address(e.address);
    w.proc(e.proc);
    w.str(e.uri);
  }
}
void put(WireWriter& w, const Inject& f) {
  w.address(f.from);
  put_message(w, f.msg);
}
void put(WireWriter& w, const Event& f) { w.str(f.encoded); }
void put(WireWriter& w, const StartDaemon& f) { w.u32(f.node); }
void put(WireWriter& w, const Activity& f) { w.boolean(f.idle); }
void put(WireWriter&, const Stop&) {}
void put(WireWriter& w, const Bye& f) { w.str(f.stats_json); }
void put(WireWriter& w, const Probe& f) { w.u64(f.wave); }
void put(WireWriter& w, const State& f) {
  w.u64(f.wave);
  w.boolean(f.idle);
  w.u64(f.sent);
  w.u64(f.handled);
  w.u64(f.calls);
  w.f64(f.clock);
}
void put(WireWriter& w, const Leave& f) { w.f64(f.at); }

State get_state(WireReader& r) {
  State f;
  f.wave = r.u64();
  f.idle = r.boolean();
  f.sent = r.u64();
  f.handled = r.u64();
  f.calls = r.u64();
  f.clock = r.f64();
  return f;
}

Frame get(WireReader& r, std::size_t index) {
  switch (index) {
    case 0: return Hello{r.i32()};
    case 1: return Setup{r.string()};
    case 2: {
      Ready f;
      f.proc = r.proc();
      f.uri = r.string();
      return f;
    }
    case 3: return Go{r.i64()};
    case 4: {
      Servers f;
      const std::uint32_t n = r.count(14, "servers");
      for (std::uint32_t i = 0; i < n; ++i) {
        ServerEntry e;
        e.address = r.address();
        e.proc = r.proc();
        e.uri = r.string();
        f.entries.push_back(std::move(e));
      }
      return f;
    }
    case 5: {
      Inject f;
      f.from = r.address();
      f.msg = get_message(r);
      return f;
    }
    case 6: return Event{r.string()};
    case 7: return StartDaemon{r.u32()};
    case 8: return Activity{r.boolean()};
    case 9: return Stop{};
    case 10: return Bye{r.string()};
    case 11: return Probe{r.u64()};
    case 12: return get_state(r);
    case 13: return Leave{r.f64()};
  }
  throw WireError("unknown control frame " + std::to_string(index), 0);
}

}  // namespace

std::string encode(const Frame& f) {
  WireWriter w;
  w.u8(static_cast<std::uint8_t>(f.index()));
  std::visit([&w](const auto& x) { put(w, x); }, f);
  return w.take();
}

Frame decode(std::string_view bytes) {
  WireReader r(bytes);
  const std::size_t index = r.u8();
  Frame f = get(r, index);
  r.expect_end();
  return f;
}

}  // namespace pmixflow::emul::control
