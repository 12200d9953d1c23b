// The routes a platform file declares, recorded while SimGrid reads them, so that a pair of hosts
// that has none is refused before SimGrid is asked for its route. SimGrid 3.32 cannot be asked
// safely: a Full zone without a single <route> reads past its empty table (SIGSEGV), a Dijkstra
// zone aborts, a Floyd zone and a route between zones without a <zoneRoute> throw from deep in
// its routing. Only the zones routed from what the file declares (Full, Floyd, Dijkstra) are
// checked here; every other kind of zone (cluster, star, torus, fat tree, dragonfly…) computes
// its routes itself and is asked.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace simgrid::kernel::routing {
class NetPoint;
class NetZoneImpl;
}  // namespace simgrid::kernel::routing

namespace pmixflow::sim {

class DeclaredRoutes {
 public:
  using NetPoint = simgrid::kernel::routing::NetPoint;
  using Zone = simgrid::kernel::routing::NetZoneImpl;

  // Listens to SimGrid's route creation until destroyed: construct it before loading the file.
  DeclaredRoutes();
  ~DeclaredRoutes();
  DeclaredRoutes(const DeclaredRoutes&) = delete;
  DeclaredRoutes& operator=(const DeclaredRoutes&) = delete;

  // Why SimGrid cannot route from `src` to `dst` (e.g. "zone 'world' declares no route", or
  // "... from 'z1' to 'z2'" between the sub-zones holding them), or nothing when it may be asked.
  std::optional<std::string> missing(const NetPoint* src, const NetPoint* dst);

 private:
  enum class Kind { Full, Graph, Other };  // Graph: Floyd and Dijkstra, which chain declared routes
  struct Declared {
    const NetPoint* from;
    const NetPoint* to;
    const NetPoint* gw_from;  // the route's gateways (null between two hosts of the zone)
    const NetPoint* gw_to;
  };
  using Key = std::tuple<const Zone*, const NetPoint*, const NetPoint*>;
  struct KeyLess {  // std::less orders any two pointers; the built-in < a tuple uses need not
    bool operator()(const Key& a, const Key& b) const;
  };
  struct Hop {
    const NetPoint* gw_from;
    const NetPoint* gw_to;
  };
  using From = std::pair<const Zone*, const NetPoint*>;
  struct FromLess {
    bool operator()(const From& a, const From& b) const;
  };

  void index();  // the recorded routes, each under the zone that holds it
  // As missing(), for a leg of the route from `asked_src` to `asked_dst` (named when it differs).
  std::optional<std::string> missing_between(const NetPoint* src, const NetPoint* dst, const NetPoint* asked_src,
                                             const NetPoint* asked_dst);
  Kind kind(const Zone* zone);
  bool reaches(const Zone* zone, const NetPoint* from, const NetPoint* to);

  unsigned slot_ = 0;
  bool indexed_ = false;
  std::vector<Declared> recorded_;
  std::map<Key, Hop, KeyLess> routes_;
  std::map<From, std::vector<const NetPoint*>, FromLess> next_;    // where each declared route leads
  std::map<From, std::set<const NetPoint*>, FromLess> reachable_;  // Graph zones: where chains lead, memo
  std::unordered_map<const Zone*, Kind> kinds_;
};

}  // namespace pmixflow::sim
