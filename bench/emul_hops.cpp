// Where a request's time goes inside the emulation, read from the held emulation's event log:
// every party logs each message it sends and receives with the run's clock (one steady clock for
// all the processes of this machine), so consecutive send and recv events of one request are its
// hops, and a recv followed by a send in the same party is that party's own handling.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "emul_bench.hpp"

namespace pmixflow::bench {
namespace {

struct Step {
  double t = 0;
  bool send = false;
  std::string who, peer, msg;
};

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The send and recv events of the requests `corrs`, by request, in time order.
std::map<std::string, std::vector<Step>> steps_of(const std::filesystem::path& events,
                                                  const std::vector<std::string>& corrs) {
  const std::set<std::string> wanted(corrs.begin(), corrs.end());
  std::map<std::string, std::vector<Step>> by_corr;
  std::ifstream in(events);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"corr\"") == std::string::npos) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    const std::string ev = j.value("ev", ""), corr = j.value("corr", "");
    if ((ev != "send" && ev != "recv") || !wanted.count(corr)) continue;
    const bool send = ev == "send";
    by_corr[corr].push_back(
        Step{j.value("t", 0.0), send, j.value("who", ""), j.value(send ? "to" : "from", ""), j.value("msg", "")});
  }
  for (auto& [corr, steps] : by_corr)
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.t < b.t; });
  return by_corr;
}

// The stretch from the daemon's receiving the request to its sending the answer back; empty when
// the log does not hold it whole.
std::vector<Step> inside(const std::vector<Step>& steps) {
  auto first = std::find_if(steps.begin(), steps.end(), [](const Step& s) {
    return !s.send && starts(s.who, "daemon:") && starts(s.peer, "requestor:") && s.msg == "alloc_request";
  });
  auto last = std::find_if(first, steps.end(), [](const Step& s) {
    return s.send && starts(s.who, "daemon:") && starts(s.peer, "requestor:") && s.msg == "alloc_response";
  });
  if (first == steps.end() || last == steps.end()) return {};
  return std::vector<Step>(first, last + 1);
}

std::string label(const Step& a, const Step& b) {
  if (a.send && !b.send) return a.who + " -> " + a.peer + ": " + a.msg;
  if (!a.send && b.send && a.who == b.who) return "  in " + a.who + ": " + a.msg + " in, " + b.msg + " out";
  return (a.send ? "send " : "recv ") + a.who + " .. " + (b.send ? "send " : "recv ") + b.who;
}

}  // namespace

HopBreakdown hop_breakdown(const std::filesystem::path& events, const std::vector<std::string>& corrs) {
  std::vector<std::string> order;  // labels in the order a request meets them
  std::map<std::string, std::vector<double>> spans;
  std::vector<double> whole;
  for (const auto& [corr, steps] : steps_of(events, corrs)) {
    const std::vector<Step> in = inside(steps);
    if (in.empty()) continue;
    whole.push_back((in.back().t - in.front().t) * 1e6);  // --speed 1: the log's seconds are wall seconds
    for (std::size_t i = 0; i + 1 < in.size(); ++i) {
      std::string l = label(in[i], in[i + 1]);
      if (!spans.count(l)) order.push_back(l);
      spans[l].push_back((in[i + 1].t - in[i].t) * 1e6);
    }
  }
  HopBreakdown out;
  out.requests = whole.size();
  out.inside_p50_us = median(whole);
  for (const auto& l : order) out.hops.push_back(Hop{l, median(spans[l])});
  return out;
}

}  // namespace pmixflow::bench
