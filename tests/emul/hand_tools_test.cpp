// `pmixflow request`, `session` and `spawn`, and the Python requestor of examples/python, as a
// person uses them: against an emulation held up by `pmixflow emul --hold`, each test's own,
// started in the background and always stopped at the end, nothing of it left running.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "held_emulation.hpp"
#include "pmixflow/trace/info_text.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

TEST(HandTools, ARequestThroughADaemonIsGrantedWithItsId) {
  HeldEmulation emulation("request");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  const auto r = tool(dir, {"request", "--via", "daemon:n01", "NEW", "PMIX_ALLOC_NUM_NODES=1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("PMIX_SUCCESS", 0), 0u) << r.out;
  EXPECT_FALSE(value_after(r.out, "PMIX_ALLOC_ID").empty()) << r.out;
  // The same in JSON, by key string and at the scheduler itself.
  const auto j = tool(dir, {"request", "--via", "scheduler", "--json", "PMIX_ALLOC_NEW", "pmix.alloc.ncpus=2"});
  ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
  const json answer = json::parse(j.out);
  EXPECT_EQ(answer["status"], "PMIX_SUCCESS");
  EXPECT_TRUE(answer["info"].contains("PMIX_ALLOC_ID")) << j.out;
  // A server the emulation does not have is bad input, named.
  const auto none = tool(dir, {"request", "--via", "daemon:n07", "NEW"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no server 'daemon:n07'"), std::string::npos) << none.err;
  expect_stopped_cleanly(emulation);
}

TEST(HandTools, AReleaseOfAnUnknownAllocationNamesItsStatusAndFails) {
  HeldEmulation emulation("release");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  const auto r = tool(dir, {"request", "--via", "daemon:n02", "RELEASE", "PMIX_ALLOC_ID=alloc-99"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("PMIX_ERR_NOT_FOUND"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("pmixflow request: PMIX_ERR_NOT_FOUND (-46)"), std::string::npos) << r.err;
  expect_stopped_cleanly(emulation);
}

TEST(HandTools, TheGrantedSessionIsTerminated) {
  HeldEmulation emulation("session");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  const auto granted = tool(dir, {"request", "NEW", "PMIX_ALLOC_NUM_NODES=1", "--app", "sleep 600", "--np", "2"});
  ASSERT_EQ(granted.exit_code, 0) << granted.out << granted.err;
  const std::string session = value_after(granted.out, "PMIX_SESSION_ID");
  ASSERT_FALSE(session.empty()) << granted.out;
  const auto paused = tool(dir, {"session", "--via", "daemon:n01", "--session", session, "PAUSE"});
  EXPECT_EQ(paused.exit_code, 0) << paused.out << paused.err;
  const auto ended = tool(dir, {"session", "--session", session, "PMIX_SESSION_TERMINATE"});
  EXPECT_EQ(ended.exit_code, 0) << ended.out << ended.err;
  EXPECT_EQ(ended.out.rfind("PMIX_SUCCESS", 0), 0u) << ended.out;
  // It is gone: a second terminate finds nothing.
  const auto again = tool(dir, {"session", "--session", session, "TERMINATE"});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  expect_stopped_cleanly(emulation);
}

TEST(HandTools, ASpawnRunsInThePoolAndOnItsOwnAllocation) {
  HeldEmulation emulation("spawn");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  const auto pool = tool(dir, {"spawn", "--app", "sleep 1", "--np", "2"});
  EXPECT_EQ(pool.exit_code, 0) << pool.out << pool.err;
  EXPECT_NE(pool.out.find("PMIX_NSPACE=job-dvm."), std::string::npos) << pool.out;
  const auto own = tool(dir, {"spawn", "--via", "daemon:n02", "--app", "sleep 1", "--np", "4", "--alloc", "NEW",
                              "PMIX_ALLOC_NUM_NODES=1"});
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  EXPECT_NE(own.out.find("PMIX_NSPACE=job-"), std::string::npos) << own.out;
  expect_stopped_cleanly(emulation);
}

TEST(HandTools, NoAnswerInTimeSaysSoAndFails) {
  HeldEmulation emulation("timeout");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  // The daemon takes the call and relays it to a controller that does not answer. (A server
  // stopped before a tool attaches would be another test: 4.2.2 crashes a server whose tool
  // left during the handshake, once the server resumes.)
  // One call answered through the daemon first: its server is listed before its link to the
  // controller is up, and a daemon without one answers PMIX_ERR_UNREACH at once.
  const auto first = run_tool({"request", "--emulation", dir, "--via", "daemon:n01", "NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const pid_t controller = emulation.party_pid("controller");
  ASSERT_GT(controller, 0);
  ::kill(controller, SIGSTOP);
  // A call never answered leaves 4.2.2's own record of it (its pmix_cb_t) unreleased by
  // PMIx_tool_finalize: a library leak, suppressed by the function that makes it.
  const auto suppressions = scratch_dir("suppressions") / "lsan.supp";
  std::ofstream(suppressions) << "leak:PMIx_Allocation_request_nb\n";
  const ToolEnv library_leak("LSAN_OPTIONS", "suppressions=" + suppressions.string());
  const auto r = run_tool({"request", "--emulation", dir, "--via", "daemon:n01", "--timeout", "1", "NEW"});
  ::kill(controller, SIGCONT);
  std::filesystem::remove_all(suppressions.parent_path());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("no answer"), std::string::npos) << r.err;
  expect_stopped_cleanly(emulation);
}

// A name is not a connection: 4.2.2 reports a tool's lost connection a second after it (its event
// caching window) and by the tool's name alone, so a second tool of the same name (`--as`)
// whose call is in flight then - through the same daemon, or through another server than the
// one the first left - is not the one that went, and is answered. The scheduler is held so that
// the call is still in flight when the first tool's loss is reported.
TEST(HandTools, AToolOfTheSameNameAsOneThatLeftIsStillAnswered) {
  HeldEmulation emulation("same-name");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  // The daemon's link to the controller up first (as NoAnswerInTimeSaysSoAndFails).
  const auto up = tool(dir, {"request", "--via", "daemon:n01", "NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  const pid_t scheduler = emulation.party_pid("scheduler");
  ASSERT_GT(scheduler, 0);
  const ToolEnv slow_unwind("ASAN_OPTIONS", "fast_unwind_on_malloc=0");  // as run_tool does, for both tools
  for (const std::string first_via : {"daemon:n01", "controller"}) {
    const std::string name = "same-name-" + first_via.substr(0, 6);
    ::kill(scheduler, SIGSTOP);
    // The second tool's call waits at the held scheduler ...
    auto held = std::async(std::launch::async, [&] {
      return run_pmixflow({"request", "--emulation", dir, "--via", "daemon:n01", "--timeout", "30", "--as", name,
                           "RELEASE", "PMIX_ALLOC_ID=alloc-99"});
    });
    std::this_thread::sleep_for(std::chrono::seconds(3));
    // ... while a first tool of its name comes and goes (ACTIVATE is the RM's to answer, not the
    // scheduler's), and PMIx reports the first one's loss.
    const auto first = tool(dir, {"request", "--via", first_via, "--as", name, "ACTIVATE", "PMIX_ALLOC_ID=alloc-99"});
    EXPECT_NE(first.out.find("PMIX_"), std::string::npos) << "through " << first_via << ": " << first.out << first.err;
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ::kill(scheduler, SIGCONT);
    const auto r = held.get();
    EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
    EXPECT_EQ(r.exit_code, 1) << "the first tool left " << first_via << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("PMIX_ERR_NOT_FOUND"), std::string::npos)
        << "the first tool left " << first_via << ", and the second's call was not answered: " << r.out << r.err;
  }
  expect_stopped_cleanly(emulation);
}

TEST(HandTools, KeyValueArgumentsAreTypedAsAScenarioTypesThem) {
  const InfoList info = info_from_text({"PMIX_ALLOC_NUM_NODES=2", "pmix.alloc.time=1:00", "PMIX_ALLOC_TIME=30",
                                        "PMIX_ALLOC_PREEMPTIBLE", "PMIX_REQUESTOR=job-1.1.3", "pmix.x.count=7",
                                        "pmix.x.name=abc", "PMIX_SESSION_RESOURCES={\"PMIX_ALLOC_NODE_LIST\":\"n01\"}"},
                                       "");
  ASSERT_EQ(info.size(), 8u);
  EXPECT_EQ(info.items[0].key, "pmix.alloc.nnodes");
  EXPECT_EQ(info.items[0].value, Value(std::uint64_t{2}));
  EXPECT_EQ(info.items[1].value, Value(std::string("1:00")));  // v5's time string
  EXPECT_EQ(info.items[2].value, Value(std::uint32_t{30}));    // 4.2.2's whole seconds
  EXPECT_EQ(info.items[3].value, Value(true));
  EXPECT_EQ(info.items[4].value, Value(Proc{"job-1.1", 3}));
  EXPECT_EQ(info.items[5].value, Value(std::uint64_t{7}));  // an unknown key as written
  EXPECT_EQ(info.items[6].value, Value(std::string("abc")));
  const auto* resources = info.get<InfoList>("pmix.ssn.res");
  ASSERT_NE(resources, nullptr);
  EXPECT_EQ(*resources->get<std::string>("pmix.alloc.nlist"), "n01");
  const auto apps = apps_from_text("sleep 30", 4, std::nullopt, "");
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(apps[0].cmd, "sleep");
  EXPECT_EQ(apps[0].argv, std::vector<std::string>{"30"});
  EXPECT_EQ(apps[0].maxprocs, 4u);
  EXPECT_EQ(
      apps_from_text(R"([{"cmd":"sleep","argv":["1"]},{"cmd":"x","runtime":2,"np":2}])", std::nullopt, std::nullopt, "")
          .size(),
      2u);
  EXPECT_THROW(info_from_text({"PMIX_SESSION_ID=-1"}, ""), InputError);
  EXPECT_THROW(apps_from_text("hostname", std::nullopt, std::nullopt, ""), InputError);
}

TEST(HandTools, BadArgumentsExitTwoNamingTheArgument) {
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"request", "--emulation", "/nonexistent", "NEW"}, "/nonexistent: no such directory"},
      {{"request", "NEW"}, "--emulation DIR"},
      {{"request", "--emulation", "/tmp", "SOON"}, "unknown directive 'SOON'"},
      {{"request", "--emulation", "/tmp", "NEW", "PMIX_ALLOC_NUM_NODES=two"}, "'PMIX_ALLOC_NUM_NODES=two'"},
      {{"request", "--emulation", "/tmp", "NEW", "PMIX_ALOC_NUM_NODES=1"}, "unknown PMIx attribute"},
      {{"request", "--emulation", "/tmp", "NEW", "PMIX_ALLOC_TIME=1:x"}, "'PMIX_ALLOC_TIME=1:x'"},
      {{"request", "--emulation", "/tmp", "--via", "login", "NEW"}, "--via"},
      {{"session", "--emulation", "/tmp", "--session", "one", "PAUSE"}, "--session"},
      {{"session", "--emulation", "/tmp", "--session", "1", "NAP"}, "unknown session operation 'NAP'"},
      {{"session", "--emulation", "/tmp", "--session", "1", "SIGNAL"}, "SIGNAL=N"},
      {{"spawn", "--emulation", "/tmp", "--app", "hostname"}, "--runtime"},
      {{"spawn", "--emulation", "/tmp", "--app", "sleep 1", "--alloc", "LATER"}, "unknown directive 'LATER'"},
      {{"request", "--emulation", "/tmp", "NEW"}, "no readable servers.json"},
  };
  for (const auto& c : cases) {
    const auto r = run_tool(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.front() << " " << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

TEST(HandTools, AnotherUsersEmulationIsRefusedByName) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0)
    GTEST_SKIP() << "needs root and setpriv to run the tool as another user";
  const auto dir = scratch_dir("private");
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  const std::string cmd = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + quote(PMIXFLOW_BIN) +
                          " request --emulation " + quote(dir.string()) + " NEW >/dev/null 2>" +
                          quote((dir.parent_path() / (dir.filename().string() + ".err")).string());
  const int raw = std::system(cmd.c_str());
  const std::string err = slurp(dir.parent_path() / (dir.filename().string() + ".err"));
  std::filesystem::remove(dir.parent_path() / (dir.filename().string() + ".err"));
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(raw));
  if (WEXITSTATUS(raw) == 126 || WEXITSTATUS(raw) == 127) GTEST_SKIP() << "pmixflow cannot be run as nobody here";
  EXPECT_EQ(WEXITSTATUS(raw), 2) << err;
  EXPECT_NE(err.find(dir.string() + ": cannot be read"), std::string::npos) << err;
  EXPECT_NE(err.find("another user's emulation"), std::string::npos) << err;
}

TEST(HandTools, ThePythonRequestorGetsAnAllocationThroughADaemon) {
  if (std::system("/usr/bin/python3 -c 'import pmix' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import pmix (Debian's python3-pmix): the Python requestor is not tried";
  HeldEmulation emulation("python");
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << emulation.err();
  const auto out = scratch_dir("python-out");
  const std::string cmd = "timeout 20 /usr/bin/python3 " + quote(source_path("examples/python/request.py")) + " " +
                          quote(dir) + " --party daemon:n01 --nodes 1 >" + quote((out / "out").string()) + " 2>" +
                          quote((out / "err").string());
  const int raw = std::system(cmd.c_str());
  const std::string text = slurp(out / "out"), err = slurp(out / "err");
  std::filesystem::remove_all(out);
  ASSERT_TRUE(WIFEXITED(raw));
  EXPECT_EQ(WEXITSTATUS(raw), 0) << text << err;
  EXPECT_EQ(text.rfind("PMIX_SUCCESS", 0), 0u) << text << err;
  EXPECT_NE(text.find("PMIX_ALLOC_ID=alloc-"), std::string::npos) << text;
  expect_stopped_cleanly(emulation);
}

}  // namespace
}  // namespace pmixflow::test
