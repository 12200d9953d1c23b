// `pmixflow request`, `session` and `spawn`, and the Python requestor of examples/python, as a
// person uses them: against an emulation held up by `pmixflow emul --hold`, each test's own,
// started in the background and always stopped at the end, nothing of it left running.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow/trace/info_text.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

using namespace std::chrono_literals;

// Two compute nodes, both with a daemon from the start, a scheduler attached: nothing else
// happens until a tool asks.
constexpr const char* kScenario =
    R"({"format":"pmixflow-scenario","version":1,"name":"by-hand","description":"an emulation for tools run by hand","controller":{"dvm":"all"}})";

// A process's command line, its arguments separated by spaces.
std::string command_line(const std::filesystem::path& proc) {
  std::string text = slurp(proc / "cmdline");
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

// The `pmixflow party` processes whose environment names `needle` (each party's TMPDIR lies
// under its emulation's): what an emulation left running.
std::vector<pid_t> parties_of(const std::string& needle) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (command_line(e.path()).find(" party ") != std::string::npos &&
        slurp(e.path() / "environ").find(needle) != std::string::npos)
      found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

// `pmixflow emul --hold` in the background, in a process group of its own, with its own TMPDIR;
// stopped as Ctrl-C stops it (SIGINT to its group), killed if it has not gone a few seconds
// later, whatever way the test ends.
class HeldEmulation {
 public:
  explicit HeldEmulation(const std::string& name) : scratch_(scratch_dir(name)) {
    std::filesystem::create_directories(scratch_ / "tmp");
    std::ofstream(scratch_ / "scenario.jsonl") << kScenario << "\n";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::setenv("TMPDIR", (scratch_ / "tmp").c_str(), 1);
      const std::string out = (scratch_ / "stdout").string(), err = (scratch_ / "stderr").string();
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(127);
      const std::string scenario = (scratch_ / "scenario.jsonl").string(), outputs = (scratch_ / "out").string();
      ::execl(PMIXFLOW_BIN, PMIXFLOW_BIN, "emul", "--hold", "--speed", "20", "--nodes", "2", "--scenario",
              scenario.c_str(), "--out", outputs.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
  }
  ~HeldEmulation() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
  }
  HeldEmulation(const HeldEmulation&) = delete;
  HeldEmulation& operator=(const HeldEmulation&) = delete;

  // Waits (bounded) until servers.json lists the controller, both daemons and the scheduler;
  // the emulation's directory then.
  std::string wait_until_up() {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(scratch_ / "tmp", ec)) {
        const std::string servers = slurp(e.path() / "servers.json");
        if (servers.find("daemon:n02") != std::string::npos && servers.find("\"scheduler\"") != std::string::npos &&
            servers.find("\"controller\"") != std::string::npos)
          return e.path().string();
      }
      std::this_thread::sleep_for(20ms);
    }
    return {};
  }

  // SIGINT, then SIGKILL if it is still there after a few seconds; reaped. Idempotent.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGINT);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (::waitpid(pid_, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(-pid_, SIGKILL);
      for (pid_t p : parties_of(scratch_.string())) ::kill(p, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  std::vector<pid_t> parties_left() const { return parties_of(scratch_.string()); }
  std::string err() const { return slurp(scratch_ / "stderr"); }
  // The process of one party, by the name it runs as (`pmixflow party --as controller`).
  pid_t party_pid(const std::string& party) const {
    for (pid_t p : parties_of(scratch_.string()))
      if (command_line("/proc/" + std::to_string(p)).find("--as " + party) != std::string::npos) return p;
    return -1;
  }

 private:
  std::filesystem::path scratch_;
  pid_t pid_ = -1;
};

// Stops the emulation and checks that none of its parties outlived it.
void expect_stopped_cleanly(HeldEmulation& emulation) {
  emulation.stop();
  EXPECT_TRUE(emulation.parties_left().empty()) << "a pmixflow party of the emulation is still running";
}

RunResult tool(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin() + 1, {"--emulation", dir, "--timeout", "8"});
  return run_pmixflow(args);
}

std::string value_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=");
  if (at == std::string::npos) return {};
  const auto from = at + key.size() + 1;
  return text.substr(from, text.find_first_of(" \n", from) - from);
}

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
  const auto granted = tool(dir, {"request", "NEW", "PMIX_ALLOC_NUM_NODES=1", "--app", "sleep 60", "--np", "2"});
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
  const pid_t controller = emulation.party_pid("controller");
  ASSERT_GT(controller, 0);
  ::kill(controller, SIGSTOP);
  const auto r = run_pmixflow({"request", "--emulation", dir, "--via", "daemon:n01", "--timeout", "1", "NEW"});
  ::kill(controller, SIGCONT);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("no answer"), std::string::npos) << r.err;
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
    const auto r = run_pmixflow(c.args);
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
