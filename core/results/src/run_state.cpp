#include "pmixflow/results/run_state.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/host_ranges.hpp"

namespace pmixflow {

using log::EventKind;
using log::Field;

log::KindSet RunState::kinds() {
  return log::kind_set({EventKind::Node, EventKind::SessionInstantiate, EventKind::SessionReclaimed,
                        EventKind::JobLaunch, EventKind::JobEnd});
}

void RunState::apply(const log::EventView& e) {
  const auto text = [&e](Field f) { return std::string(e.str(f).value_or("")); };
  switch (e.kind) {
    case EventKind::Node: {
      LoggedNode& n = nodes_[text(Field::node)];
      n.daemon = text(Field::daemon);
      n.use = text(Field::use);
      n.sessions.clear();
      const auto list = nlohmann::json::parse(e.json(Field::sessions).value_or("[]"), nullptr, false);
      if (list.is_array())
        for (const auto& s : list)
          if (s.is_number_unsigned()) n.sessions.push_back(s.get<std::uint32_t>());
      return;
    }
    case EventKind::SessionInstantiate: {
      const auto id = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
      sessions_[id] = LoggedSession{text(Field::alloc), text(Field::corr), true};
      session_by_corr_[text(Field::corr)] = id;
      return;
    }
    case EventKind::SessionReclaimed:
      if (auto it = sessions_.find(static_cast<std::uint32_t>(e.uint(Field::session).value_or(0)));
          it != sessions_.end())
        it->second.exists = false;
      return;
    case EventKind::JobLaunch: {
      const std::string nspace = text(Field::nspace);
      LoggedJob& j = jobs_[nspace];
      j.corr = text(Field::corr);
      j.session = static_cast<std::uint32_t>(e.uint(Field::session).value_or(0));
      j.ranks = text(Field::rank_map);
      j.ended = false;
      if (!j.corr.empty()) job_by_corr_[j.corr] = nspace;
      return;
    }
    case EventKind::JobEnd:
      if (auto it = jobs_.find(text(Field::nspace)); it != jobs_.end()) it->second.ended = true;
      return;
    default: return;
  }
}

const LoggedNode* RunState::node(const std::string& name) const {
  const auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

const LoggedSession* RunState::session(std::uint32_t id) const {
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

const LoggedJob* RunState::job(const std::string& nspace) const {
  const auto it = jobs_.find(nspace);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::optional<std::uint32_t> RunState::session_of(const std::string& corr) const {
  const auto it = session_by_corr_.find(corr);
  if (it == session_by_corr_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> RunState::job_of(const std::string& corr) const {
  const auto it = job_by_corr_.find(corr);
  if (it == job_by_corr_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> RunState::nodes_of(std::uint32_t session) const {
  std::vector<std::string> out;
  for (const auto& [name, n] : nodes_)
    if (std::find(n.sessions.begin(), n.sessions.end(), session) != n.sessions.end()) out.push_back(name);
  // By number, as people list nodes: n9 before n10 (the map holds them by text).
  std::sort(out.begin(), out.end(), host_order);
  return out;
}

}  // namespace pmixflow
