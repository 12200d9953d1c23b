#include "declared_routes.hpp"

#include <functional>
#include <string_view>
#include <typeinfo>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include "pmixflow/vocab/quote.hpp"

namespace pmixflow::sim {
namespace {

using NetPoint = DeclaredRoutes::NetPoint;
using Zone = DeclaredRoutes::Zone;

// Where SimGrid looks a route up: the innermost zone holding both ends, and what stands for each
// end in it (the end itself, or the sub-zone holding it), as NetZoneImpl::get_global_route does.
struct Level {
  const Zone* zone = nullptr;
  const NetPoint* from = nullptr;
  const NetPoint* to = nullptr;
};

// The zones holding `p`, innermost first. A zone's own point is held by its parent.
std::vector<const Zone*> zones_holding(const NetPoint* p) {
  std::vector<const Zone*> out;
  for (const Zone* z = p->get_englobing_zone(); z != nullptr; z = z->get_parent()) out.push_back(z);
  return out;
}

std::optional<Level> level_of(const NetPoint* a, const NetPoint* b) {
  const auto za = zones_holding(a);
  const auto zb = zones_holding(b);
  std::size_t i = za.size();
  std::size_t j = zb.size();
  while (i > 0 && j > 0 && za[i - 1] == zb[j - 1]) {
    --i;
    --j;
  }
  if (i == za.size() || j == zb.size()) return std::nullopt;  // no zone holds both
  return Level{za[i], i == 0 ? a : za[i - 1]->get_netpoint(), j == 0 ? b : zb[j - 1]->get_netpoint()};
}

// SimGrid keeps its zone classes private (XBT_PRIVATE): the type's name is all that tells them.
bool named(const Zone* zone, std::string_view mangled) { return std::string_view(typeid(*zone).name()) == mangled; }

std::string names(const NetPoint* p) { return quote_value(p->get_name()); }

}  // namespace

bool DeclaredRoutes::KeyLess::operator()(const Key& a, const Key& b) const {
  const std::less<const void*> less;
  if (std::get<0>(a) != std::get<0>(b)) return less(std::get<0>(a), std::get<0>(b));
  if (std::get<1>(a) != std::get<1>(b)) return less(std::get<1>(a), std::get<1>(b));
  return less(std::get<2>(a), std::get<2>(b));
}

bool DeclaredRoutes::FromLess::operator()(const From& a, const From& b) const {
  const std::less<const void*> less;
  return a.first != b.first ? less(a.first, b.first) : less(a.second, b.second);
}

DeclaredRoutes::DeclaredRoutes() {
  // SimGrid 3.32 reports a <zoneRoute> by its gateways, a <route> by its hosts: either way the
  // zone holding the route is the innermost one holding both points (index()).
  slot_ = Zone::on_route_creation.connect(
      [this](bool symmetrical, NetPoint* src, NetPoint* dst, NetPoint* gw_src, NetPoint* gw_dst, const auto&) {
        recorded_.push_back(Declared{src, dst, gw_src, gw_dst});
        if (symmetrical && src != dst) recorded_.push_back(Declared{dst, src, gw_dst, gw_src});
      });
}

DeclaredRoutes::~DeclaredRoutes() { Zone::on_route_creation.disconnect(slot_); }

void DeclaredRoutes::index() {
  indexed_ = true;
  for (const Declared& d : recorded_)
    if (const auto at = level_of(d.from, d.to);
        at && routes_.try_emplace(Key{at->zone, at->from, at->to}, Hop{d.gw_from, d.gw_to}).second)
      next_[From{at->zone, at->from}].push_back(at->to);
  recorded_.clear();
}

DeclaredRoutes::Kind DeclaredRoutes::kind(const Zone* zone) {
  auto [it, fresh] = kinds_.try_emplace(zone, Kind::Other);
  if (fresh) {
    if (named(zone, "N7simgrid6kernel7routing8FullZoneE"))
      it->second = Kind::Full;
    else if (named(zone, "N7simgrid6kernel7routing9FloydZoneE") ||
             named(zone, "N7simgrid6kernel7routing12DijkstraZoneE"))
      it->second = Kind::Graph;
  }
  return it->second;
}

bool DeclaredRoutes::reaches(const Zone* zone, const NetPoint* from, const NetPoint* to) {
  // Floyd and Dijkstra chain the declared routes: a route exists where a chain of them leads.
  auto [it, fresh] = reachable_.try_emplace(From{zone, from});
  std::set<const NetPoint*>& seen = it->second;
  if (fresh) {
    std::vector<const NetPoint*> todo{from};
    while (!todo.empty()) {
      const NetPoint* p = todo.back();
      todo.pop_back();
      if (const auto out = next_.find(From{zone, p}); out != next_.end())
        for (const NetPoint* q : out->second)
          if (seen.insert(q).second) todo.push_back(q);
    }
  }
  return seen.count(to) > 0;
}

std::optional<std::string> DeclaredRoutes::missing(const NetPoint* src, const NetPoint* dst) {
  if (!indexed_) index();
  return missing_between(src, dst, src, dst);
}

std::optional<std::string> DeclaredRoutes::missing_between(const NetPoint* src, const NetPoint* dst,
                                                           const NetPoint* asked_src, const NetPoint* asked_dst) {
  if (src == dst) return std::nullopt;
  const auto at = level_of(src, dst);
  if (!at) return "no zone holds both";
  std::string none = "zone " + quote_value(at->zone->get_name()) + " declares no route";
  if (at->from != asked_src || at->to != asked_dst) none += " from " + names(at->from) + " to " + names(at->to);
  switch (kind(at->zone)) {
    case Kind::Other: return std::nullopt;
    case Kind::Graph: return reaches(at->zone, at->from, at->to) ? std::nullopt : std::optional(none);
    case Kind::Full: break;
  }
  const auto route = routes_.find(Key{at->zone, at->from, at->to});
  if (route == routes_.end()) return none;
  // Between sub-zones the route runs gateway to gateway: each end reaches its gateway inside its
  // own zone, as SimGrid then asks.
  const Hop& hop = route->second;
  if (at->from != src) {
    if (!hop.gw_from) return none + " with gateways";
    if (auto inside = missing_between(src, hop.gw_from, asked_src, asked_dst)) return inside;
  }
  if (at->to != dst) {
    if (!hop.gw_to) return none + " with gateways";
    if (auto inside = missing_between(hop.gw_to, dst, asked_src, asked_dst)) return inside;
  }
  return std::nullopt;
}

}  // namespace pmixflow::sim
