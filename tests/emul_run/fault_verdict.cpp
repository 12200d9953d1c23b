#include "fault_verdict.hpp"

#include <signal.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "run_invariants.hpp"

namespace pmixflow::test {
namespace {

using nlohmann::json;

bool ends_party(const json& e, const std::string& party) {
  const std::string ev = e.value("ev", ""), who = e.value("who", "");
  if ((ev == "party.down" || ev == "daemon.exit") && who == party) return true;
  if (party.rfind("daemon:", 0) != 0) return false;
  // A daemon goes with its node, by a fault on it, or with its controller.
  if ((ev == "daemon.fail" || ev == "node.fail") && "daemon:" + e.value("node", "") == party) return true;
  return ev == "party.down" && who == "controller";
}

// Why the party was not surely in the flow while the signal reached it, or "" when it was: up
// (its party.up) well before, no planned end and no restart anywhere near, the run not ending.
std::string not_in_flow(const Action& a, const std::vector<json>& events, double speed) {
  if (!a.delivered) return "it had gone";
  if (!a.alone) return "another process had its name";
  const double margin = kKillMarginWall * speed;
  const double lo = a.from_s * speed - margin, hi = a.to_s * speed + margin;
  double up = -1;
  for (const auto& e : events) {
    const double t = e.value("t", -1.0);
    if (e.value("ev", "") == "log.end" && t <= hi) return "the run ended near then";
    if (e.value("who", "") == a.party && e.value("ev", "") == "party.up") {
      if (t >= lo && t <= hi) return "it went near then";
      if (t < lo) up = t;
    }
    if (up >= 0 && ends_party(e, a.party) && t >= up && t <= hi) up = -1;
  }
  return up >= 0 ? "" : "not up, or its planned end near or before then";
}

std::vector<json> events_of(const std::filesystem::path& file, std::vector<std::string>& b) {
  try {
    return read_events(file);
  } catch (const std::exception& e) {
    b.push_back("the log cannot be read: " + std::string(e.what()));
    return {};
  }
}

bool was_killed(const Action& a) { return a.delivered && a.blow != Blow::StopCont; }

std::vector<std::string> cut_run_breaches(const FaultedRun& r) {
  std::vector<std::string> b;
  const Action* named = nullptr;
  for (const auto& a : r.actions)
    if (was_killed(a) &&
        r.err.find(a.party + "'s process killed by signal " + std::to_string(a.signal)) != std::string::npos)
      named = &a;
  if (!named) return {"exit 3 naming no party the harness killed with its signal: " + r.err};
  if (r.err.find("not by the scenario") == std::string::npos) b.push_back("exit 3 not saying the death was unplanned");
  const auto events = events_of(r.out / "events.jsonl", b);
  if (!events.empty() && events.back().value("ev", "") == "log.end") b.push_back("a cut run's log ends with log.end");
  bool down = false;
  double last = 0;
  for (const auto& e : events) {
    down = down || (e.value("ev", "") == "party.down" && e.value("who", "") == named->party);
    const double t = e.value("t", last);
    if (t < last) b.push_back("the cut log is out of time order at " + e.dump());
    last = std::max(last, t);
  }
  if (!down) b.push_back("the cut log has no party.down for " + named->party);
  for (const char* f : {"summary.json", "jobs.csv"})
    if (std::filesystem::exists(r.out / f)) b.push_back(std::string("a cut run left ") + f);
  return b;
}

// Who makes the call on each of the scenario's call lines (1-based, the header line 1).
std::map<int, std::string> planned_calls(const std::filesystem::path& scenario) {
  std::map<int, std::string> calls;
  std::ifstream in(scenario);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const json j = json::parse(line, nullptr, false);
    const std::string op = j.is_object() ? j.value("op", "") : "";
    if (op == "scheduler_session_control") calls[n] = "scheduler";
    if (op == "alloc" || op == "session_control" || op == "spawn") calls[n] = "requestor:" + j.value("requestor", "");
  }
  return calls;
}

// When every call the run never made belongs to a party the harness stopped (exit 1), the
// breaches that say so are the stop's doing: they become a note.
void excuse_calls_held_by_stops(const FaultedRun& r, const std::vector<json>& events, std::vector<std::string>& b,
                                std::vector<std::string>& notes) {
  if (r.exit_code != 1) return;
  auto missing = planned_calls(r.scenario);
  for (const auto& e : events)
    if (e.value("ev", "") == "call") missing.erase(e.value("line", 0));
  if (missing.empty()) return;
  std::string who;
  for (const auto& [line, party] : missing) {
    bool stopped = false;
    for (const auto& a : r.actions) stopped = stopped || (a.blow == Blow::StopCont && a.delivered && a.party == party);
    if (!stopped) return;
    who += " " + party + " (line " + std::to_string(line) + ")";
  }
  std::erase_if(b, [](const std::string& x) {
    return x.rfind("call_account: never_made", 0) == 0 || x == "exit 1 though every call was answered" ||
           x == "exit 1 with no call held at the scheduler";
  });
  notes.push_back("calls never made by parties the harness stopped:" + who);
}

// An emulation in which nothing can move any more but calls wait ends `stalled: X waits for N
// answers, ...` (exit 1) where the simulator says `quiescent` with calls held at the scheduler:
// the calls the log leaves unanswered must be exactly those, and are then no breach.
void judge_stall(const std::vector<json>& events, std::vector<std::string>& b) {
  if (events.empty() || events.back().value("end", "").rfind("stalled: ", 0) != 0) return;
  std::map<std::string, int> said, left;
  std::string end = events.back().value("end", "").substr(9) + ", ";
  for (std::size_t at = 0, next; (next = end.find(", ", at)) != std::string::npos; at = next + 2) {
    const std::string item = end.substr(at, next - at);
    const auto w = item.find(" waits for ");
    if (w != std::string::npos) said[item.substr(0, w)] = std::atoi(item.c_str() + w + 11);
  }
  std::map<std::string, std::string> open;  // corr -> who
  for (const auto& e : events) {
    if (e.value("ev", "") == "call") open[e.value("corr", "")] = e.value("who", "");
    if (e.value("ev", "") == "answer") open.erase(e.value("corr", ""));
    // A requestor gone abandons its calls: the account counts them, nobody waits for them.
    if (e.value("ev", "") == "party.down")
      std::erase_if(open, [&](const auto& c) { return c.second == e.value("who", ""); });
  }
  for (const auto& [corr, who] : open) ++left[who];
  std::erase_if(b, [](const std::string& x) {
    return (x.rfind("call ", 0) == 0 && x.ends_with(" was never answered")) ||
           x == "exit 1 with no call held at the scheduler";
  });
  if (said != left)
    b.push_back("the log ends `" + events.back().value("end", "") + "`, but other calls are left unanswered");
}

std::vector<std::string> finished_breaches(const FaultedRun& r, std::vector<std::string>& notes) {
  std::vector<std::string> b = finished_run_breaches(r.out, r.exit_code);
  const auto events = events_of(r.out / "events.jsonl", b);
  judge_stall(events, b);
  excuse_calls_held_by_stops(r, events, b, notes);
  for (const auto& a : r.actions) {
    if (a.blow == Blow::StopCont) continue;
    const std::string why = not_in_flow(a, events, r.speed);
    if (why.empty())
      b.push_back(a.text() + ": killed while in the flow, and the run ended " + std::to_string(r.exit_code) +
                  " instead of 3 naming it");
    else
      notes.push_back(a.party + " not surely in the flow: " + why);
  }
  return b;
}

}  // namespace

std::vector<std::string> fault_breaches(const FaultedRun& r, std::vector<std::string>& notes) {
  if (r.exit_code == 3) return cut_run_breaches(r);
  if (r.exit_code != 0 && r.exit_code != 1) return {"exit " + std::to_string(r.exit_code) + ": " + r.err};
  try {
    return finished_breaches(r, notes);
  } catch (const std::exception& e) {
    return {std::string("the log cannot be checked: ") + e.what()};
  }
}

}  // namespace pmixflow::test
