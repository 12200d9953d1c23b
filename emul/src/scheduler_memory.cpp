#include "pmixflow/emul/scheduler_memory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "pmixflow/proto/wire.hpp"

namespace pmixflow::emul {
namespace {

void put(WireWriter& w, const Principal& p) {
  w.proc(p.proc);
  w.boolean(p.uid.has_value());
  w.u32(p.uid.value_or(0));
  w.boolean(p.gid.has_value());
  w.u32(p.gid.value_or(0));
}

Principal get_principal(WireReader& r) {
  Principal p;
  p.proc = r.proc();
  if (r.boolean()) p.uid = r.u32(); else r.u32();
  if (r.boolean()) p.gid = r.u32(); else r.u32();
  return p;
}

void put(WireWriter& w, const SlotRuns& runs) {
  w.count(runs.size());
  for (const auto& s : runs) {
    w.u32(s.node);
    w.u32(s.first);
    w.u32(s.count);
  }
}

SlotRuns get_slots(WireReader& r) {
  SlotRuns runs(r.count(12, "slot runs"));
  for (auto& s : runs) s = SlotRun{r.u32(), r.u32(), r.u32()};
  return runs;
}

void put(WireWriter& w, const RunningAllocation& v) {
  w.u64(v.key);
  w.u64(v.cpus);
  w.f64(v.start_time);
  w.f64(v.expected_end);
  w.i32(v.priority);
  w.boolean(v.preemptible);
  w.boolean(v.ending);
}

RunningAllocation get_running(WireReader& r) {
  RunningAllocation v;
  v.key = r.u64();
  v.cpus = r.u64();
  v.start_time = r.f64();
  v.expected_end = r.f64();
  v.priority = r.i32();
  v.preemptible = r.boolean();
  v.ending = r.boolean();
  return v;
}

void put(WireWriter& w, const QueueEntry& q) {
  w.u64(q.view.key);
  w.f64(q.view.submit_time);
  w.u64(q.view.cpus);
  w.u32(q.view.nodes);
  w.f64(q.view.estimate);
  w.i32(q.view.priority);
  w.boolean(q.view.preemptible);
  const Pending& p = q.pending;
  w.address(p.origin.address);
  w.u64(p.origin.id);
  w.str(p.origin.corr);
  put(w, p.requestor);
  w.str(p.req_id);
  w.u64(p.need.cpus);
  w.u32(p.need.nodes);
  w.count(p.need.named.size());
  for (NodeId n : p.need.named) w.u32(n);
  w.f64(p.time_limit);
  w.info(p.apps_and_job);
  w.boolean(p.inheritance.has_value());
  w.u32(p.inheritance.value_or(0));
  w.info(p.passed_on);
  w.boolean(p.answered);
}

QueueEntry get_entry(WireReader& r) {
  QueueEntry q;
  q.view = QueuedRequest{r.u64(), r.f64(), r.u64(), r.u32(), r.f64(), r.i32(), r.boolean()};
  Pending& p = q.pending;
  p.origin.address = r.address();
  p.origin.id = r.u64();
  p.origin.corr = r.string();
  p.requestor = get_principal(r);
  p.req_id = r.string();
  p.need.cpus = r.u64();
  p.need.nodes = r.u32();
  p.need.named.resize(r.count(4, "named nodes"));
  for (auto& n : p.need.named) n = r.u32();
  p.time_limit = r.f64();
  p.apps_and_job = r.info();
  const bool inherits = r.boolean();
  const std::uint32_t inheritance = r.u32();
  if (inherits) p.inheritance = inheritance;
  p.passed_on = r.info();
  p.answered = r.boolean();
  return q;
}

void put(WireWriter& w, const Live& l) {
  w.str(l.alloc_id);
  w.u32(l.session_id);
  put(w, l.owner);
  w.str(l.corr);
  put(w, l.slots);
  put(w, l.view);
  w.f64(l.granted_at);
  w.boolean(l.instantiated);
  w.boolean(l.requeue.has_value());
  if (l.requeue) put(w, *l.requeue);
}

Live get_live(WireReader& r) {
  Live l;
  l.alloc_id = r.string();
  l.session_id = r.u32();
  l.owner = get_principal(r);
  l.corr = r.string();
  l.slots = get_slots(r);
  l.view = get_running(r);
  l.granted_at = r.f64();
  l.instantiated = r.boolean();
  if (r.boolean()) l.requeue = get_entry(r);
  return l;
}

}  // namespace

std::string encode_memory(const SchedulerMemory& m) {
  WireWriter w;
  w.u64(m.next_key);
  w.u32(m.next_session);
  w.count(m.live.size());
  for (const auto& l : m.live) put(w, l);
  return w.take();
}

SchedulerMemory decode_memory(std::string_view bytes) {
  WireReader r(bytes);
  SchedulerMemory m;
  m.next_key = r.u64();
  m.next_session = r.u32();
  const std::uint32_t n = r.count(16, "allocations");
  for (std::uint32_t i = 0; i < n; ++i) m.live.push_back(get_live(r));
  r.expect_end();
  return m;
}

void save_memory(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".new";
  // The user's alone, as everything in the emulation's directory: it names who owns what.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;  // a scheduler that cannot save loses its memory at a restart, no more
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  const bool whole = ::close(fd) == 0 && done == bytes.size();
  if (!whole || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

std::optional<std::string> load_memory(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace pmixflow::emul
