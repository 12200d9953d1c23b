#include "scenario_generator.hpp"

#include <sstream>
#include <utility>

namespace pmixflow::test {

std::string ScenarioGenerator::entry() {
  switch (pick(3)) {
    case 0: return "controller";
    case 1: return "scheduler";
    default: return "daemon:" + node();
  }
}

void ScenarioGenerator::line(double at, const std::string& body) {
  std::ostringstream l;
  l.precision(9);
  l << R"({"at":)" << at << "," << body << "}\n";
  lines_ += l.str();
}

// Several users: some requestors run under uids of their own, so calls on another's session
// are refused as well as granted.
std::string ScenarioGenerator::header() {
  std::string h = R"({"format":"pmixflow-scenario","version":1,"name":"fuzz","controller":{"dvm":")" +
                  std::string(chance(0.5) ? "all" : "+n0") + R"("})";
  if (chance(0.5)) h += R"(,"requestors":{"b":{"uid":1001,"gid":1001},"d":{"uid":1002,"gid":1001}})";
  return h + "}\n";
}

std::string ScenarioGenerator::alloc_new() {
  std::string info = R"("PMIX_ALLOC_NUM_CPUS":)" + number(1, 32);
  if (chance(0.3)) info = R"("PMIX_ALLOC_NUM_NODES":)" + number(1, 3);
  if (chance(0.6)) info += R"(,"PMIX_ALLOC_TIME":")" + number(1, 20) + "\"";
  if (chance(0.3)) info += R"(,"PMIX_ALLOC_REQ_ID":"r)" + number(1, 3) + "\"";
  std::string body = R"("directive":"PMIX_ALLOC_NEW","info":{)" + info + "}";
  if (chance(0.5)) body += R"(,"app":{"cmd":"sleep","argv":[")" + number(1, 6) + R"("],"np":1})";
  return body;
}

// EXTEND, RELEASE, REAQUIRE, REQ_CANCEL and ACTIVATE, on allocations that may or may not exist.
std::string ScenarioGenerator::alloc_change() {
  const std::string id = R"("PMIX_ALLOC_ID":")" + alloc_id() + "\"";
  switch (pick(5)) {
    case 0:
      return R"("directive":"PMIX_ALLOC_EXTEND","info":{)" + id +
             (chance(0.5) ? R"(,"PMIX_ALLOC_NUM_NODES":1)" : R"(,"PMIX_ALLOC_TIME":")" + number(5, 40) + "\"") + "}";
    case 1: return R"("directive":"PMIX_ALLOC_RELEASE","info":{)" + id + "}";
    case 2: return R"("directive":"PMIX_ALLOC_REAQUIRE","info":{)" + id + "}";
    case 3: return R"("directive":"PMIX_ALLOC_REQ_CANCEL","info":{"PMIX_ALLOC_REQ_ID":"r)" + number(1, 3) + "\"}";
    default: return R"("directive":"PMIX_ALLOC_ACTIVATE","info":{"PMIX_HOST":")" + node() + "\"}";
  }
}

std::string ScenarioGenerator::session_directives() {
  switch (pick(7)) {
    case 0: return R"({"PMIX_SESSION_PAUSE":true})";
    case 1: return R"({"PMIX_SESSION_RESUME":true})";
    case 2: return R"({"PMIX_SESSION_TERMINATE":true})";
    case 3: return R"({"PMIX_SESSION_PREEMPT":true})";
    case 4: return R"({"PMIX_SESSION_RESTORE":true})";
    case 5: return R"({"PMIX_SESSION_SIGNAL":15})";
    default: return R"({"PMIX_SESSION_EXTEND":true,"PMIX_ALLOC_TIME":")" + number(5, 40) + "\"}";
  }
}

std::string ScenarioGenerator::spawn() {
  std::string body = R"("app":{"cmd":"sleep","argv":[")" + number(1, 4) + R"("],"np":)" + number(1, 4) + "}";
  if (chance(0.6))
    body += R"(,"alloc":{"directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":)" + number(1, 8) + "}}";
  return body;
}

void ScenarioGenerator::call(const std::string& who) {
  const double at = time(0.5, 8);
  calls_at_[who].push_back(at);
  const std::string from = R"("requestor":")" + who + R"(","via":")" + entry() + R"(",)";
  switch (pick(4)) {
    case 0: line(at, R"("op":"alloc",)" + from + alloc_new()); break;
    case 1: line(at, R"("op":"alloc",)" + from + alloc_change()); break;
    case 2:
      line(at, R"("op":"session_control",)" + from + R"("session":)" + session() + R"(,"directives":)" +
                   session_directives());
      break;
    default: line(at, R"("op":"spawn",)" + from + spawn());
  }
}

// The scheduler's own hand on the RM: an operation on a session, or an instantiation of its own.
void ScenarioGenerator::scheduler_session_control() {
  const double at = time(0.5, 8);
  scheduler_calls_at_.push_back(at);
  if (chance(0.7))
    return line(at, R"("op":"scheduler_session_control","session":)" + number(1, 6) + R"(,"directives":)" +
                        session_directives());
  line(at, R"("op":"scheduler_session_control","session":)" + number(40, 49) +
               R"(,"directives":{"PMIX_SESSION_INSTANTIATE":true,"PMIX_ALLOC_NODE_LIST":")" + node() +
               R"(","PMIX_ALLOC_ID":"s)" + number(1, 99) + R"("},"app":{"cmd":"sleep","argv":["2"],"np":1})");
}

// A requestor exits once; one with calls still to make starts again before the first of them
// (a call planned while its requestor is down is refused at input).
void ScenarioGenerator::requestor_exit(double at) {
  const std::string who = requestors_[pick(4)];
  if (!exited_.insert(who).second) return;
  line(at, R"("op":"requestor_exit","requestor":")" + who + R"(")");
  double next = -1;
  for (double t : calls_at_[who])
    if (t >= at && (next < 0 || t < next)) next = t;
  if (next >= 0) line(time(at, next), R"("op":"requestor_start","requestor":")" + who + R"(")");
}

// What a triggered fault waits for: a step of a call's flight, or the nth of something.
std::string ScenarioGenerator::trigger() {
  const std::string nth = R"(,"nth":)" + number(1, 3);
  switch (pick(5)) {
    case 0: return R"("when":{"ev":"recv","who":"daemon:)" + node() + R"(","msg":"alloc_request"})";
    case 1: return R"("when":{"ev":"alloc.grant"})" + nth;
    case 2: return R"("when":{"ev":"session.complete"})" + nth;
    case 3: return R"("when":{"ev":"job.launch"})" + nth;
    default: return R"("when":{"ev":"recv","who":"controller","msg":"session_ctrl"})" + nth;
  }
}

void ScenarioGenerator::fault() {
  const double at = time(0.5, 9);
  // Every other fault happens when something happens rather than at a time.
  const bool triggered = chance(0.5);
  const auto put = [&](const std::string& body) {
    if (!triggered) return line(at, body);
    std::ostringstream l;
    l.precision(9);
    l << "{" << body << "," << trigger() << R"(,"delay":)" << (chance(0.5) ? 0.0 : time(0, 0.01)) << "}\n";
    lines_ += l.str();
  };
  const std::string repair = chance(0.5) ? "" : std::to_string(time(0.001, 3));
  switch (pick(6)) {
    case 0:
      put(R"("op":"node_fail","node":")" + node() + "\"" + (repair.empty() ? "" : R"(,"return_after":)" + repair));
      break;
    case 1: put(R"("op":"daemon_start_fails","node":")" + node() + R"(")"); break;
    case 2:
      put(R"("op":"daemon_fail","node":")" + node() + "\"" + (repair.empty() ? "" : R"(,"restart_after":)" + repair));
      break;
    case 3:
      // Not at a time the scheduler is detached: there is no process to stall (refused at input).
      if (!triggered) {
        for (const auto& [from, to] : detached_)
          if (at >= from && at <= to) return;
        stalls_at_.push_back(at);
      }
      put(R"("op":"scheduler_stall","for":)" + std::to_string(time(0.001, 3)));
      break;
    case 4: put(R"("op":"node_return","node":")" + node() + R"(")"); break;
    default: timed_fault(at);
  }
}

// The faults a scenario places at a time only.
void ScenarioGenerator::timed_fault(double at) {
  switch (pick(3)) {
    case 0: requestor_exit(at); break;
    case 1: {
      // Not across a call of the scheduler's own nor a timed stall: a detached scheduler makes no
      // call and has no process to stall (both refused at input).
      const double back = at + time(0.001, 2);
      for (double t : scheduler_calls_at_)
        if (t >= at && t <= back) return;
      for (double t : stalls_at_)
        if (t >= at && t <= back) return;
      detached_.emplace_back(at, back);
      line(at, R"("op":"scheduler_detach")");
      line(back, R"("op":"scheduler_attach")");
      break;
    }
    default:
      if (!std::exchange(controller_failed_, true)) line(at, R"("op":"controller_fail")");
  }
}

std::string ScenarioGenerator::scenario() {
  lines_ = header();
  for (const auto& who : requestors_)
    for (int n = 1 + pick(3); n > 0; --n) call(who);
  for (int n = pick(3); n > 0; --n) scheduler_session_control();
  for (int n = 1 + pick(3); n > 0; --n) fault();
  return lines_;
}

}  // namespace pmixflow::test
