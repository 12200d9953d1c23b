#include "platform_check.hpp"

#include <fstream>
#include <regex>
#include <unordered_set>
#include <vector>

#include <simgrid/s4u.hpp>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace sg4 = simgrid::s4u;

namespace pmixflow::sim {
namespace {

// Past this many compute nodes, each is checked against the roles and its neighbours in name
// order only: every pair would be millions of route lookups.
constexpr std::size_t kEveryPairUpTo = 1024;

// The attribute on line `line` of `file` whose value `message` quotes ("cannot parse
// number:fast" -> bandwidth="fast"); empty when none does.
std::string attribute_quoted(const std::string& file, std::size_t line, const std::string& message) {
  std::ifstream in(file);
  std::string text;
  for (std::size_t i = 0; i < line && std::getline(in, text); ++i) {
  }
  static const std::regex kAttribute(R"re(([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*"([^"]*)")re");
  std::string found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kAttribute); it != std::sregex_iterator(); ++it) {
    const std::string value = (*it)[2];
    if (!value.empty() && message.find(value) != std::string::npos && value.size() >= found.size()) found = (*it)[1];
  }
  return found;
}

std::string host_pair(const sg4::Host* a, const sg4::Host* b) {
  return quote_value(a->get_name()) + " to " + quote_value(b->get_name());
}

class RouteCheck {
 public:
  RouteCheck(const std::string& file, DeclaredRoutes& declared) : file_(file), declared_(declared) {}

  // SimGrid sends over the route's links, or its latency alone; with neither there is no path.
  void check(const sg4::Host* a, const sg4::Host* b) {
    if (a == b) return;
    if (const auto why = declared_.missing(a->get_netpoint(), b->get_netpoint())) no_route(a, b, " (" + *why + ")");
    std::vector<sg4::Link*> links;
    double latency = 0;
    try {
      a->route_to(b, links, &latency);
    } catch (const std::exception& e) {
      no_route(a, b, " (SimGrid: " + std::string(e.what()) + ")");
    }
    if (links.empty() && !(latency > 0)) no_route(a, b, "");
    for (const sg4::Link* link : links)
      if (seen_.insert(link).second && !(link->get_bandwidth() > 0))
        throw InputError(file_, 0, "link " + quote_value(link->get_name()) + " bandwidth",
                         "a link of zero bandwidth carries nothing (on the route from " + host_pair(a, b) + ")");
  }
  void both(const sg4::Host* a, const sg4::Host* b) {
    check(a, b);
    check(b, a);
  }

 private:
  [[noreturn]] void no_route(const sg4::Host* a, const sg4::Host* b, const std::string& why) const {
    throw InputError(file_, 0, "",
                     "no route from " + host_pair(a, b) + why + ": every party must reach the others it talks to");
  }

  const std::string& file_;
  DeclaredRoutes& declared_;
  std::unordered_set<const sg4::Link*> seen_;
};

}  // namespace

void refuse_platform(const std::exception& e, const std::string& file) {
  // "Parse error at FILE:LINE: MESSAGE", as simgrid::ParseError words it.
  static const std::regex kParse(R"re(^Parse error at (.*):([0-9]+): (.*)$)re");
  const std::string what = e.what();
  std::smatch m;
  if (!std::regex_match(what, m, kParse)) throw InputError(file, 0, "", "SimGrid refuses the platform: " + what);
  const std::size_t line = parse_whole<std::size_t>(m.str(2)).value_or(0);
  const std::string message = m[3];
  std::string field = attribute_quoted(m[1], line, message);
  throw InputError(m[1], line, field, message);
}

void check_routes(const Machine& m, const std::string& file, DeclaredRoutes& declared) {
  RouteCheck routes(file, declared);
  const std::vector<const sg4::Host*> roles{m.head, m.scheduler, m.login};
  for (std::size_t i = 0; i < roles.size(); ++i) {
    for (std::size_t j = i + 1; j < roles.size(); ++j) routes.both(roles[i], roles[j]);
    for (const sg4::Host* node : m.compute) routes.both(roles[i], node);
  }
  // Daemons launch daemons (PRRTE's tree spawn) and relay to each other.
  const std::size_t n = m.compute.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > kEveryPairUpTo) {
      if (i + 1 < n) routes.both(m.compute[i], m.compute[i + 1]);
      continue;
    }
    for (std::size_t j = i + 1; j < n; ++j) routes.both(m.compute[i], m.compute[j]);
  }
}

}  // namespace pmixflow::sim
