// Who may come in (docs/emulation.md): an emulation's directories and sockets are its user's
// alone and go with it; the servers believe the user PMIx reports for a connection, never one a
// tool claims in its info; a user let in (`--allow-user`) may ask for resources but not touch
// another user's session; anyone else cannot reach the emulation at all. The other users are
// real ones, made for each test and removed after it, so this needs root.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "emul_run.hpp"
#include "held_emulation.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUseradd = "/usr/sbin/useradd";
constexpr const char* kUserdel = "/usr/sbin/userdel";
constexpr const char* kSetpriv = "/usr/bin/setpriv";
constexpr const char* kRunuser = "/usr/sbin/runuser";

// Runs `command` through the shell, retried a while when it fails: useradd and userdel refuse
// while another process (a test running beside this one) holds /etc/passwd's lock.
bool run_retried(const std::string& command) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (std::system(command.c_str()) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Removes the users a test run killed outright (no destructor ran) left behind: this test's
// names, whose process is gone.
void remove_users_of_dead_runs() {
  std::vector<std::string> dead;
  ::setpwent();
  while (const passwd* p = ::getpwent()) {
    const std::string name = p->pw_name;
    for (const std::string prefix : {"pmixflow-guest-", "pmixflow-stranger-"}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string pid = name.substr(prefix.size());
      if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos && !fs::exists("/proc/" + pid))
        dead.push_back(name);
    }
  }
  ::endpwent();
  for (const auto& name : dead) run_retried(std::string(kUserdel) + " " + name + " >/dev/null 2>&1");
}

// A system user of this machine, made for one test and removed (with its group) when the test
// ends, however it ends. The name carries the test's pid: tests running side by side each have
// their own, and none removes a user another still runs as.
class ThrowawayUser {
 public:
  explicit ThrowawayUser(const std::string& role) : name_("pmixflow-" + role + "-" + std::to_string(::getpid())) {
    if (!::getpwnam(name_.c_str()))
      run_retried(std::string(kUseradd) + " --system --no-create-home --home-dir /nonexistent --shell " +
                  "/usr/sbin/nologin " + name_ + " >/dev/null 2>&1");
    if (const passwd* p = ::getpwnam(name_.c_str())) {
      uid_ = p->pw_uid;
      gid_ = p->pw_gid;
      made_ = true;
    }
  }
  ~ThrowawayUser() {
    if (!made_) return;
    run_retried(std::string(kUserdel) + " " + name_ + " >/dev/null 2>&1");
    if (::getpwnam(name_.c_str())) ADD_FAILURE() << "the test user " << name_ << " could not be removed (userdel)";
  }
  ThrowawayUser(const ThrowawayUser&) = delete;
  ThrowawayUser& operator=(const ThrowawayUser&) = delete;

  bool made() const { return made_; }
  const std::string& name() const { return name_; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }

 private:
  std::string name_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool made_ = false;
};

// The shell words that run what follows as `user`, with no group of root's, and with a TMPDIR
// of its own (where a tool makes its PMIx directory).
std::string as_user(const ThrowawayUser& user, const fs::path& tmpdir) {
  const std::string env = " env TMPDIR=" + quote(tmpdir.string()) + " HOME=/nonexistent ";
  if (::access(kSetpriv, X_OK) == 0)
    return std::string(kSetpriv) + " --reuid=" + std::to_string(user.uid()) + " --regid=" + std::to_string(user.gid()) +
           " --clear-groups" + env;
  return std::string(kRunuser) + " -u " + user.name() + " --" + env;
}

// Every call these tests make is answered; the timeout only bounds a hang. Sanitized processes
// on a loaded machine have been seen to take more than 8 s to answer (and a tool that gives up
// leaves the library's request to LeakSanitizer, failing the test for the wrong reason).
#ifdef PMIXFLOW_SANITIZED
constexpr const char* kToolTimeout = "30";
#else
constexpr const char* kToolTimeout = "8";
#endif

// `pmixflow COMMAND --timeout kToolTimeout ARGS...` run as `user`; `args` start with the command.
RunResult run_as(const ThrowawayUser& user, const fs::path& tmpdir, std::vector<std::string> args) {
  args.insert(args.begin() + 1, {"--timeout", kToolTimeout});
  const ToolEnv slow_unwind("ASAN_OPTIONS", "fast_unwind_on_malloc=0");  // as run_tool does
  const fs::path stdio = scratch_dir("as-" + user.name());
  std::string cmd = as_user(user, tmpdir) + quote(PMIXFLOW_BIN);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote((stdio / "out").string()) + " 2>" + quote((stdio / "err").string()) + " </dev/null";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(stdio / "out");
  r.err = slurp(stdio / "err");
  fs::remove_all(stdio);
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  return r;
}

// A server's PMIX_SERVER_URI, from servers.json: what the emulation's owner hands to a user it
// lets in, who cannot read the emulation's directory.
std::string uri_of(const std::string& dir, const std::string& party) {
  const json servers = json::parse(slurp(fs::path(dir) / "servers.json"), nullptr, false);
  if (servers.is_array())
    for (const auto& s : servers)
      if (s.value("party", "") == party) return s.value("uri", "");
  return {};
}

// Refused as a user notices: exit 1, the status named on both streams.
void expect_no_permission(const RunResult& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << " was not refused:\n" << r.out << r.err;
  EXPECT_NE(r.out.find("PMIX_ERR_NO_PERMISSIONS"), std::string::npos) << what << ": " << r.out;
  EXPECT_NE(r.err.find("PMIX_ERR_NO_PERMISSIONS"), std::string::npos) << what << ": " << r.err;
}

// The user's claim to be root, as a tool puts it in its info (the server must not believe it).
const std::vector<std::string> kClaimsRoot = {"PMIX_USERID=0", "PMIX_GRPID=0"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Two users besides root: `guest`, whom the tests let in, and `stranger`, whom they do not;
// each with a directory of its own for its tools' TMPDIR. Skipped where users cannot be made.
class Security : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: it makes two users and runs pmixflow as them";
    if (::access(kUseradd, X_OK) != 0 || ::access(kUserdel, X_OK) != 0)
      GTEST_SKIP() << kUseradd << " or " << kUserdel << " is missing: no other user can be made";
    if (::access(kSetpriv, X_OK) != 0 && ::access(kRunuser, X_OK) != 0)
      GTEST_SKIP() << "neither " << kSetpriv << " nor " << kRunuser << ": nothing runs as another user";
    remove_users_of_dead_runs();
    guest_.emplace("guest");
    stranger_.emplace("stranger");
    ASSERT_TRUE(guest_->made() && stranger_->made()) << "useradd could not make the test users";
    homes_ = scratch_dir("homes");
    for (const ThrowawayUser* u : {&*guest_, &*stranger_}) {
      fs::create_directory(homes_ / u->name());
      fs::permissions(homes_ / u->name(), fs::perms::owner_all);
      ASSERT_EQ(::chown((homes_ / u->name()).c_str(), u->uid(), u->gid()), 0);
      const std::string probe = as_user(*u, home(*u)) + "/bin/sh -c " +
                                quote(std::string("test -x ") + quote(PMIXFLOW_BIN) + " && test -w \"$TMPDIR\"");
      if (std::system(probe.c_str()) != 0)
        GTEST_SKIP() << u->name() << " cannot run " << PMIXFLOW_BIN << " or write in " << home(*u)
                     << ": a directory on the way is closed to other users";
    }
  }
  void TearDown() override {
    std::error_code ec;
    if (!homes_.empty()) fs::remove_all(homes_, ec);
  }

  fs::path home(const ThrowawayUser& u) const { return homes_ / u.name(); }
  RunResult as_guest(const std::vector<std::string>& args) { return run_as(*guest_, home(*guest_), args); }
  RunResult as_stranger(const std::vector<std::string>& args) { return run_as(*stranger_, home(*stranger_), args); }

  // Removed with the fixture: after the test body, whose emulations (its locals) have stopped,
  // since userdel refuses a user something still runs as.
  std::optional<ThrowawayUser> guest_, stranger_;
  fs::path homes_;
};

TEST_F(Security, ALetInUserGetsResourcesButCannotTouchTheOwnersSession) {
  HeldEmulation emulation("allowed", {"--allow-user", guest_->name()});
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  const auto owners = tool(dir, {"request", "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=2"});
  ASSERT_EQ(owners.exit_code, 0) << owners.out << owners.err;
  const std::string session = value_after(owners.out, "PMIX_SESSION_ID"),
                    alloc = value_after(owners.out, "PMIX_ALLOC_ID");
  ASSERT_FALSE(session.empty() || alloc.empty()) << owners.out;
  const std::string controller = uri_of(dir, "controller"), daemon = uri_of(dir, "daemon:n01"),
                    scheduler = uri_of(dir, "scheduler");
  ASSERT_FALSE(controller.empty() || daemon.empty() || scheduler.empty()) << slurp(fs::path(dir) / "servers.json");

  const auto asked = as_guest({"request", "--uri", controller, "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  EXPECT_EQ(asked.exit_code, 0) << "a user let in may ask for resources: " << asked.out << asked.err;
  EXPECT_EQ(asked.out.rfind("PMIX_SUCCESS", 0), 0u) << asked.out;
  // Through each kind of server, and with the tool claiming to be root in its info: refused all
  // the same, since the servers go by the user PMIx reports for the connection.
  for (const auto& claim : {std::vector<std::string>{}, kClaimsRoot}) {
    const std::string as = claim.empty() ? " as itself" : " claiming PMIX_USERID=0";
    expect_no_permission(
        as_guest(with({"session", "--uri", controller, "--session", session, "PMIX_SESSION_PAUSE"}, claim)),
        "the guest's pause of the owner's session" + as);
    expect_no_permission(as_guest(with({"request", "--uri", daemon, "PMIX_ALLOC_EXTEND", "PMIX_ALLOC_ID=" + alloc,
                                        "PMIX_ALLOC_NUM_CPUS=1"},
                                       claim)),
                         "the guest's extension of the owner's allocation" + as);
    expect_no_permission(
        as_guest(with({"request", "--uri", scheduler, "PMIX_ALLOC_RELEASE", "PMIX_ALLOC_ID=" + alloc}, claim)),
        "the guest's release of the owner's allocation" + as);
  }
  // Its own session is its to control.
  const std::string own = value_after(asked.out, "PMIX_SESSION_ID");
  ASSERT_FALSE(own.empty()) << asked.out;
  const auto paused = as_guest({"session", "--uri", daemon, "--session", own, "PMIX_SESSION_PAUSE"});
  EXPECT_EQ(paused.exit_code, 0) << "the guest's pause of its own session: " << paused.out << paused.err;
  EXPECT_EQ(paused.out.rfind("PMIX_SUCCESS", 0), 0u) << paused.out;
  // What was refused changed nothing: the owner's allocation is there for the owner to release.
  const auto released = tool(dir, {"request", "PMIX_ALLOC_RELEASE", "PMIX_ALLOC_ID=" + alloc});
  EXPECT_EQ(released.exit_code, 0) << "the owner's own release: " << released.out << released.err;
  EXPECT_TRUE(leftovers(home(*guest_)).empty()) << "a tool of the guest left its PMIx directory behind";
  expect_stopped_cleanly(emulation);
}

// A tool names its own PMIx namespace (`--as`), and 4.2.2 does not tell a server when a tool
// that finalized has gone: the namespace the owner's tool used is no key to the owner's session
// for another user's tool, at the server that knew the owner's tool (the connection's user
// decides, not the name's) or at another (the session's user decides, not its creator's name).
TEST_F(Security, AnotherUsersToolCannotPassForTheSessionsCreator) {
  HeldEmulation emulation("namespace", {"--allow-user", guest_->name()});
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  const auto owners = tool(dir, {"request", "--as", "owners-tool", "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=2"});
  ASSERT_EQ(owners.exit_code, 0) << owners.out << owners.err;
  const std::string session = value_after(owners.out, "PMIX_SESSION_ID"),
                    alloc = value_after(owners.out, "PMIX_ALLOC_ID");
  ASSERT_FALSE(session.empty() || alloc.empty()) << owners.out;
  for (const std::string party : {"controller", "daemon:n01"}) {
    const std::string uri = uri_of(dir, party);
    ASSERT_FALSE(uri.empty()) << party << " is not in " << slurp(fs::path(dir) / "servers.json");
    const std::string in = ", in the owner's tool's namespace, through " + party;
    expect_no_permission(
        as_guest({"session", "--uri", uri, "--as", "owners-tool", "--session", session, "PMIX_SESSION_TERMINATE"}),
        "the guest's terminate of the owner's session" + in);
    expect_no_permission(
        as_guest({"request", "--uri", uri, "--as", "owners-tool", "PMIX_ALLOC_RELEASE", "PMIX_ALLOC_ID=" + alloc}),
        "the guest's release of the owner's allocation" + in);
    // "Every session the caller controls" holds none of the owner's, whatever the answer says.
    as_guest({"session", "--uri", uri, "--as", "owners-tool", "--session", "all", "PMIX_SESSION_TERMINATE"});
  }
  const auto still = tool(dir, {"session", "--session", session, "PMIX_SESSION_PAUSE"});
  EXPECT_EQ(still.exit_code, 0) << "the owner's session did not survive the guest's calls: " << still.out << still.err;
  EXPECT_EQ(still.out.rfind("PMIX_SUCCESS", 0), 0u) << still.out;
  expect_stopped_cleanly(emulation);
}

TEST_F(Security, AUserNotLetInCannotReachTheEmulation) {
  HeldEmulation emulation("stranger", {"--allow-user", guest_->name()});
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  // It cannot even find the servers: the directory that lists them is closed to it.
  const auto found = as_stranger({"request", "--emulation", dir, "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  EXPECT_EQ(found.exit_code, 2) << found.out << found.err;
  EXPECT_NE(found.err.find(dir + ": cannot be read"), std::string::npos) << found.err;
  EXPECT_NE(found.err.find("another user's emulation"), std::string::npos) << found.err;
  // Given a server's URI anyway (PMIx listens on TCP, which any local user may connect to), each
  // of its calls is refused: whatever user it claims to be, whichever namespace it takes (one the
  // owner's tool had here before it, too).
  const auto owners = tool(dir, {"request", "--as", "owners-tool", "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  ASSERT_EQ(owners.exit_code, 0) << owners.out << owners.err;
  for (const std::string party : {"controller", "daemon:n02", "scheduler"}) {
    const std::string uri = uri_of(dir, party);
    ASSERT_FALSE(uri.empty()) << party << " is not in " << slurp(fs::path(dir) / "servers.json");
    const std::vector<std::string> ask = {"request", "--uri", uri, "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"};
    expect_no_permission(as_stranger(ask), "a stranger's request through " + party);
    expect_no_permission(as_stranger(with(ask, kClaimsRoot)),
                         "a stranger's request through " + party + " claiming PMIX_USERID=0");
  }
  expect_no_permission(as_stranger({"request", "--uri", uri_of(dir, "controller"), "--as", "owners-tool",
                                    "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"}),
                       "a stranger's request in the namespace of the owner's tool");
  expect_no_permission(
      as_stranger({"session", "--uri", uri_of(dir, "controller"), "--session", "all", "PMIX_SESSION_TERMINATE"}),
      "a stranger's terminate of every session");
  expect_stopped_cleanly(emulation);
}

// A PMIx tool of another user naming itself as a party: what `pmixflow request --as` refuses,
// a tool written with the Python bindings can do.
constexpr const char* kPartyImpostor = R"(import sys, tempfile, warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import pmix
def info(k, v, t): return {"key": k, "value": v, "val_type": t}
uri, nspace = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
t = pmix.PMIxTool()
t.init([info(pmix.PMIX_TOOL_NSPACE, nspace, pmix.PMIX_STRING), info(pmix.PMIX_TOOL_RANK, 0, pmix.PMIX_PROC_RANK),
        info(pmix.PMIX_TOOL_DO_NOT_CONNECT, True, pmix.PMIX_BOOL), info(pmix.PMIX_SYSTEM_TMPDIR, tmp, pmix.PMIX_STRING),
        info(pmix.PMIX_SERVER_TMPDIR, tmp, pmix.PMIX_STRING)])
rc, _, _ = t.attach_to_server([info(pmix.PMIX_SERVER_URI, uri, pmix.PMIX_STRING),
                               info(pmix.PMIX_PRIMARY_SERVER, True, pmix.PMIX_BOOL), info(pmix.PMIX_TIMEOUT, 8, pmix.PMIX_INT)])
if rc == pmix.PMIX_SUCCESS:
    rc, _ = t.allocation_request(pmix.PMIX_ALLOC_NEW, [info(pmix.PMIX_ALLOC_NUM_CPUS, 1, pmix.PMIX_UINT64)])
print("PMIX_ERR_NO_PERMISSIONS" if rc == pmix.PMIX_ERR_NO_PERMISSIONS else "PMIX_SUCCESS" if rc == 0 else "status %d" % rc)
t.finalize()
)";

TEST_F(Security, NoOtherUserPassesForAParty) {
  if (std::system("/usr/bin/python3 -c 'import pmix' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import pmix (Debian's python3-pmix): no tool can name itself freely";
  HeldEmulation emulation("party", {"--allow-user", guest_->name()});
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  const fs::path script = home(*guest_) / "impostor.py";
  std::ofstream(script) << kPartyImpostor;
  // The scheduler is attached to the controller, the controller to the scheduler: each server
  // already knows a tool of that name, the emulation's user's.
  const struct { std::string party, server; } cases[] = {{"scheduler", "controller"}, {"prte", "scheduler"}};
  for (const auto& c : cases) {
    const std::string cmd = as_user(*guest_, home(*guest_)) + "timeout 30 /usr/bin/python3 " + quote(script.string()) +
                            " " + quote(uri_of(dir, c.server)) + " " + c.party + " 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    for (char buf[256]; std::fgets(buf, sizeof buf, pipe);) out += buf;
    ::pclose(pipe);
    EXPECT_NE(out.find("PMIX_ERR_NO_PERMISSIONS"), std::string::npos)
        << "a guest's tool named " << c.party << " was served by the " << c.server << " as the party: " << out;
  }
  const auto owners = tool(dir, {"request", "PMIX_ALLOC_NEW", "PMIX_ALLOC_NUM_CPUS=1"});
  EXPECT_EQ(owners.exit_code, 0) << "the emulation no longer serves its owner: " << owners.out << owners.err;
  expect_stopped_cleanly(emulation);
}

// The emulation's scenario, with one requestor that runs as `user` (a party outside the
// emulation's user, with a directory of its own).
std::string scenario_with_requestor(const ThrowawayUser& user) {
  return std::string(R"({"format":"pmixflow-scenario","version":1,"name":"another-user","description":)") +
         R"("a requestor of another user","controller":{"dvm":"all"},"requestors":{"guest":{"uid":)" +
         std::to_string(user.uid()) + R"(,"gid":)" + std::to_string(user.gid()) + "}}}\n" +
         R"({"at":1,"op":"alloc","requestor":"guest","via":"daemon:n01","directive":"PMIX_ALLOC_NEW",)" +
         R"("info":{"PMIX_ALLOC_NUM_CPUS":1}})";
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// What is under the emulation's TMPDIR: every directory its user's alone (0700; a party run as
// another user has one of its own, that user's), every socket closed to others. How many
// directories and sockets there were.
std::pair<int, int> expect_private(const fs::path& tmpdir, const std::string& run_dir, const ThrowawayUser& other) {
  int dirs = 0, sockets = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(tmpdir, ec); !ec && it != fs::end(it); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;  // gone meanwhile (a tool's own)
    const std::string path = it->path().string();
    const bool inside = path == run_dir || path.rfind(run_dir + "/", 0) == 0;
    if (S_ISDIR(st.st_mode)) {
      ++dirs;
      EXPECT_EQ(st.st_mode & 07777, 0700u) << path << " is " << mode_text(st.st_mode) << ", not 0700";
      const uid_t owner = inside ? ::geteuid() : other.uid();  // outside: the other user's party's
      EXPECT_EQ(st.st_uid, owner) << path << " belongs to uid " << st.st_uid << ", not " << owner;
    } else if (S_ISSOCK(st.st_mode)) {
      ++sockets;
      EXPECT_EQ(st.st_mode & 077, 0u) << "the socket " << path << " is " << mode_text(st.st_mode);
    }
  }
  return {dirs, sockets};
}

TEST_F(Security, TheEmulationsDirectoriesAreItsUsersAndGoWithIt) {
  HeldEmulation emulation("files", {}, scenario_with_requestor(*guest_));
  const std::string dir = emulation.wait_until_up();
  ASSERT_FALSE(dir.empty()) << "the emulation did not come up: " << emulation.err();
  // The run directory, the servers' (controller, scheduler, two daemons), the requestor's in it
  // and the one outside it for the requestor run as the guest; the controller's daemon socket.
  const auto [dirs, sockets] = expect_private(emulation.tmpdir(), dir, *guest_);
  EXPECT_GE(dirs, 7) << "fewer directories than the emulation makes: "
                     << ::testing::PrintToString(leftovers(emulation.tmpdir()));
  EXPECT_GE(sockets, 1) << "no socket seen: " << ::testing::PrintToString(leftovers(emulation.tmpdir()));
  // Not even the names are another user's to see.
  const std::string look = as_user(*stranger_, home(*stranger_)) + "/bin/ls " + quote(dir) + " >/dev/null 2>&1";
  EXPECT_NE(std::system(look.c_str()), 0) << "another user can list " << dir;
  expect_stopped_cleanly(emulation);
  EXPECT_TRUE(leftovers(emulation.tmpdir()).empty())
      << "left behind: " << ::testing::PrintToString(leftovers(emulation.tmpdir()));
}

}  // namespace
}  // namespace pmixflow::test
