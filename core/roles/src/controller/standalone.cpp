#include "pmixflow/roles/controller/standalone.hpp"

#include <optional>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/principal.hpp"

namespace pmixflow {

Status Standalone::release(const AllocRequest& req) {
  if (!req.info.has(key::ALLOC_ID)) return shrink(req);
  const auto* alloc = req.info.get<std::string>(key::ALLOC_ID);
  Session* s = alloc ? sessions_.by_alloc(*alloc) : nullptr;
  if (!s) return Status::ErrNotFound;
  if (!owns(sessions_.caller_of(req.caller, req.info, false), s->owner, s->id)) return Status::ErrNoPermissions;
  // As prte_ras_base_teardown_reservation(): its jobs are ended and its daemons leave (not the
  // controller's own, nor those of nodes another session still holds), whatever its inheritance.
  s->returned = true;
  sessions_.terminate(*s, Status::ErrJobKilledByCmd);
  return Status::Success;
}

Status Standalone::shrink(const AllocRequest& req) {
  // As PRRTE's ras_base_complete_release_request() without PMIX_ALLOC_ID (rows R51, R52): the
  // first node list names nodes whose daemons leave the DVM, whoever holds them.
  const Value* list = req.info.find(key::ALLOC_NODE_LIST);
  if (!list) return Status::ErrNotFound;
  const auto* text = std::get_if<std::string>(list);
  if (!text) return Status::ErrBadParam;
  std::optional<std::vector<NodeId>> named;
  try {
    named = parse_node_names(*text, cluster_);
  } catch (const InputError&) {
    return Status::ErrBadParam;
  }
  if (!named) return Status::ErrNotFound;  // a node not in the pool
  // Skipped: a node without a daemon (as PRRTE; one still starting cannot be, as a RELEASE
  // waits while the DVM grows), and the controller's own, whose daemon is the controller:
  // PRRTE would send its own HNP away, ending the DVM (rule 4, row R77). A node whose daemon
  // was lost is released as PRRTE releases it: reset, nothing sent.
  std::vector<NodeId> targets;
  for (NodeId n : *named) {
    const DaemonState d = dvm_.node(n).daemon;
    if (n != Cluster::kHead && (d == DaemonState::Up || d == DaemonState::Failed)) targets.push_back(n);
  }
  // Nothing to remove: answered, and no change is reported (PRRTE records no campaign).
  if (targets.empty()) return Status::Success;
  const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID);
  dvm_.shrink(targets, req.corr, req_id ? *req_id : std::string(), req.caller);
  return Status::Success;
}

Status Standalone::extend(const AllocRequest& req, InfoList& answer) {
  // As PRRTE's ras_base_prepare_grow() and ras_base_complete_grow_request() for an EXTEND
  // (docs/prrte-conformance.md R32-R34, R36): the reservation is named by PMIX_ALLOC_ID, else
  // PMIX_ALLOC_REQ_ID, and must be the caller's. Counts add nothing; a node list adds its nodes.
  const auto* alloc = req.info.get<std::string>(key::ALLOC_ID);
  const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID);
  if (!alloc && !req_id) return Status::ErrBadParam;
  Session* s = alloc ? sessions_.by_alloc(*alloc) : nullptr;
  if (!s && req_id) s = sessions_.by_req_id(*req_id);
  if (!s) return Status::ErrNotFound;
  if (!owns(sessions_.caller_of(req.caller, req.info, false), s->owner, s->id)) return Status::ErrNoPermissions;
  if (auto inh = req.info.get_uint(key::ALLOC_INHERITANCE); inh && *inh >= 1 && *inh <= 4)
    s->inheritance = static_cast<Inheritance>(*inh);
  s->requester = req.caller;  // PRRTE refreshes it: the next event goes to the latest caller
  SlotList added;
  if (const Status st = read_node_lists(req.info, added); st != Status::Success) return st;
  if (!added.empty()) sessions_.add_nodes(*s, added, req.corr);
  answer.add(key::ALLOC_ID, s->alloc_id);
  if (req_id) answer.add(key::ALLOC_REQ_ID, *req_id);
  return Status::Success;
}

Status Standalone::reserve(const AllocRequest& req, InfoList& answer) {
  // As PRRTE's ras_base_prepare_grow(), create_reservation() and ras_base_complete_grow_request()
  // for a NEW (docs/prrte-conformance.md R35-R40): a reservation the caller owns, holding the
  // nodes its node lists name and growing the DVM over them. Counts alone make it empty; an app
  // is not launched (a spawn naming the reservation's PMIX_ALLOC_ID runs it).
  // PRRTE keeps a given PMIX_ALLOC_ID without looking, so two reservations could share one and
  // a RELEASE, EXTEND or spawn by it reach the wrong one: refused instead (rule 4, row R35).
  if (const auto* given = req.info.get<std::string>(key::ALLOC_ID); given && sessions_.by_alloc(*given))
    return Status::ErrExists;
  InfoList resources;
  // The node lists as they came: instantiate() refuses one that is not a string or does not
  // parse before anything is made (PRRTE creates the reservation first and leaves it
  // registered when a list is refused: rule 4, row R36).
  for (const auto& item : req.info.items)
    if (item.key == key::ALLOC_NODE_LIST) resources.add(item.key, item.value);
  // No PMIX_ALLOC_TIME: PRRTE's reservation has no time limit (create_reservation() reads none).
  for (const auto& k : {key::ALLOC_ID, key::ALLOC_REQ_ID, key::ALLOC_INHERITANCE})
    if (const Value* v = req.info.find(k)) resources.add(k, *v);
  InfoList directives;
  directives.add(key::SESSION_INSTANTIATE, true)
      .add(key::SESSION_RESOURCES, std::move(resources))
      .add(key::REQUESTOR, req.caller);
  add_ids(directives, principal_of(req.caller, req.info));  // the owner, as the caller is
  // The RM's own decision, answered as an allocation, not as session control.
  const Origin internal{Address::controller(), 0, req.corr};
  const std::uint32_t id = fresh_session_id();
  if (const Status st = sessions_.instantiate(internal, req.caller, id, directives); st != Status::Success) return st;
  answer.add(key::ALLOC_ID, sessions_.find(id)->alloc_id);
  if (const auto* req_id = req.info.get<std::string>(key::ALLOC_REQ_ID)) answer.add(key::ALLOC_REQ_ID, *req_id);
  return Status::Success;
}

Status Standalone::read_node_lists(const InfoList& info, SlotList& nodes) const {
  // Every PMIX_ALLOC_NODE_LIST counts; one that is not a string or does not parse is refused,
  // as PRRTE's prte_ras_base_parse_node_list(), before anything changes.
  for (const auto& item : info.items) {
    if (item.key != key::ALLOC_NODE_LIST) continue;
    const auto* list = std::get_if<std::string>(&item.value);
    std::optional<SlotList> parsed;
    try {
      if (list) parsed = parse_node_slots(*list, cluster_);
    } catch (const InputError&) {
      return Status::ErrBadParam;
    }
    if (!parsed || parsed->empty()) return Status::ErrBadParam;
    merge_slots(nodes, *parsed);
  }
  return Status::Success;
}

std::uint32_t Standalone::fresh_session_id() {
  // As create_reservation(): a counter, skipping ids in use and UINT32_MAX ("all sessions").
  do {
    ++last_session_;
  } while (last_session_ == kAllSessions || sessions_.find(last_session_));
  return last_session_;
}

void Standalone::serve(const Origin& origin, AllocRequest&& req) {
  env_.log(ev::AllocStandalone{.corr = req.corr, .directive = directive_name(req.directive)});
  if (req.directive == Directive::Release) return replies_.allocation(origin, release(req));
  if (req.directive != Directive::Extend && req.directive != Directive::New)
    return replies_.allocation(origin, Status::ErrNotSupported);
  InfoList answer;
  const Status st = req.directive == Directive::New ? reserve(req, answer) : extend(req, answer);
  replies_.allocation(origin, st, st == Status::Success ? std::move(answer) : InfoList{});
}

}  // namespace pmixflow
