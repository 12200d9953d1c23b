// A platform file that SimGrid cannot run is refused before the run starts, as bad input naming
// the file and what is wrong: an attribute that does not parse, two parties with no route
// between them, a link of zero bandwidth. Without these checks SimGrid aborts mid-run (exit 134).
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

// Five hosts in one zone routed as `routing` says; `routes` and `link` fill it in.
std::string platform(const std::string& link, const std::string& routes, const std::string& routing = "Full") {
  return "<?xml version='1.0'?>\n"
         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\">\n"
         "  <zone id=\"world\" routing=\"" +
         routing +
         "\">\n"
         "    <host id=\"head\" speed=\"1Gf\"/><host id=\"sched\" speed=\"1Gf\"/><host id=\"login\" speed=\"1Gf\"/>\n"
         "    <host id=\"n01\" speed=\"1Gf\"/><host id=\"n02\" speed=\"1Gf\"/>\n" +
         link + "\n" + routes +
         "  </zone>\n"
         "</platform>\n";
}

std::string routes_between(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  for (const auto& [a, b] : pairs)
    out += "    <route src=\"" + a + "\" dst=\"" + b + "\"><link_ctn id=\"l1\"/></route>\n";
  return out;
}

const std::vector<std::pair<std::string, std::string>> kAllPairs = {
    {"head", "sched"}, {"head", "login"}, {"head", "n01"},  {"head", "n02"},  {"sched", "login"},
    {"sched", "n01"},  {"sched", "n02"},  {"login", "n01"}, {"login", "n02"}, {"n01", "n02"}};

RunResult run_platform(const std::string& xml) {
  const auto dir = scratch_dir("platform-border");
  const auto file = dir / "p.xml";
  std::ofstream(file) << xml;
  auto r =
      run_pmixflow({"sim", "--platform", file.string(), "--scenario", source_path("tests/scenarios/entry-daemon.jsonl"),
                    "--out", (dir / "out").string(), "--quiet"});
  r.err += std::filesystem::exists(dir / "out" / "events.jsonl") ? "[events.jsonl written]" : "";
  // Named as the user wrote it: the message must say which file.
  if (r.err.find(file.string()) != std::string::npos) r.err += "[names the file]";
  std::filesystem::remove_all(dir);
  return r;
}

const std::string kLink = "    <link id=\"l1\" bandwidth=\"1GBps\" latency=\"1us\"/>";

TEST(PlatformBorder, AWellFormedPlatformRuns) {
  const auto r = run_platform(platform(kLink, routes_between(kAllPairs)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(PlatformBorder, AnAttributeThatDoesNotParseIsNamed) {
  auto link = kLink;
  link.replace(link.find("1GBps"), 5, "fast");
  const auto r = run_platform(platform(link, routes_between(kAllPairs)));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("p.xml:7: field 'bandwidth'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fast"), std::string::npos) << r.err;
}

TEST(PlatformBorder, TwoPartiesWithoutARouteAreRefusedBeforeTheRun) {
  auto pairs = kAllPairs;
  std::erase(pairs, std::pair<std::string, std::string>{"head", "n02"});
  const auto r = run_platform(platform(kLink, routes_between(pairs)));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no route from 'head' to 'n02'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[names the file]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Backtrace"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[events.jsonl written]"), std::string::npos) << r.err;
}

// What SimGrid would be asked and cannot answer: it reads past a Full zone's empty route table
// (SIGSEGV), aborts in a Dijkstra zone, throws between zones without a <zoneRoute>.
void expect_refused(const RunResult& r, const std::string& a, const std::string& b) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no route from '" + a + "' to '" + b + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[names the file]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Backtrace"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[events.jsonl written]"), std::string::npos) << r.err;
}

TEST(PlatformBorder, AFullZoneListingHostsButNoRoutesIsRefusedBeforeSimGridIsAsked) {
  expect_refused(run_platform(platform(kLink, "")), "head", "sched");
}

TEST(PlatformBorder, AZoneRoutedByShortestPathsWithoutRoutesIsRefusedBeforeSimGridIsAsked) {
  expect_refused(run_platform(platform(kLink, "", "Dijkstra")), "head", "sched");
  expect_refused(run_platform(platform(kLink, "", "Floyd")), "head", "sched");
}

TEST(PlatformBorder, TwoZonesWithoutARouteBetweenThemAreRefusedBeforeSimGridIsAsked) {
  // The service hosts in one zone, the nodes in another, and no <zoneRoute> between them.
  const std::string xml =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n"
      "  <zone id=\"world\" routing=\"Full\">\n"
      "    <zone id=\"service\" routing=\"Full\">\n"
      "      <host id=\"head\" speed=\"1Gf\"/><host id=\"sched\" speed=\"1Gf\"/><host id=\"login\" speed=\"1Gf\"/>\n"
      "      <link id=\"l1\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
      "      <route src=\"head\" dst=\"sched\"><link_ctn id=\"l1\"/></route>\n"
      "      <route src=\"head\" dst=\"login\"><link_ctn id=\"l1\"/></route>\n"
      "      <route src=\"sched\" dst=\"login\"><link_ctn id=\"l1\"/></route>\n"
      "    </zone>\n"
      "    <zone id=\"nodes\" routing=\"Full\">\n"
      "      <host id=\"n01\" speed=\"1Gf\"/>\n"
      "    </zone>\n"
      "  </zone>\n"
      "</platform>\n";
  expect_refused(run_platform(xml), "head", "n01");
}

TEST(PlatformBorder, ALinkOfZeroBandwidthIsRefusedBeforeTheRun) {
  auto link = kLink;
  link.replace(link.find("1GBps"), 5, "0Bps");
  const auto r = run_platform(platform(link, routes_between(kAllPairs)));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("field 'link 'l1' bandwidth': a link of zero bandwidth carries nothing"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace pmixflow::test
