// The emulation's private directory: made under $TMPDIR for its user alone, party directories
// inside it named for the file system, and gone with everything in it when the emulation ends.
#include "pmixflow/emul/run_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

using testing_support::ScopedEnv;
using testing_support::ScratchDir;

namespace fs = std::filesystem;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode;
}

bool empty_dir(const std::string& path) { return fs::is_empty(path); }

TEST(RunDir, IsAPrivateDirectoryUnderTmpdir) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  const RunDir run;
  EXPECT_EQ(fs::path(run.path()).parent_path(), fs::path(tmp.path()));
  EXPECT_TRUE(fs::path(run.path()).filename().string().starts_with("pmixflow-emul-")) << run.path();
  EXPECT_TRUE(S_ISDIR(mode_of(run.path())));
  EXPECT_EQ(mode_of(run.path()) & 07777, 0700u);
}

TEST(RunDir, IsPrivateWhateverTheUmask) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  const mode_t old = ::umask(0);
  const RunDir run;
  const std::string party = run.party_dir("daemon:n01");
  ::umask(old);
  EXPECT_EQ(mode_of(run.path()) & 07777, 0700u);
  EXPECT_EQ(mode_of(party) & 07777, 0700u);
}

TEST(RunDir, TwoRunsGetTwoDirectories) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  const RunDir one, two;
  EXPECT_NE(one.path(), two.path());
}

TEST(RunDir, EmptyTmpdirMeansSlashTmp) {
  const ScopedEnv env("TMPDIR", std::string());
  const RunDir run;
  EXPECT_EQ(fs::path(run.path()).parent_path(), fs::path("/tmp"));
}

TEST(RunDir, MissingTmpdirIsRefusedNamingIt) {
  ScratchDir tmp;
  const std::string missing = tmp / "gone";
  const ScopedEnv env("TMPDIR", missing);
  try {
    const RunDir run;
    ADD_FAILURE() << "made " << run.path();
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

TEST(RunDir, PartyDirIsAPrivateSubdirectoryWithColonsTurnedIntoDashes) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  const RunDir run;
  const std::string daemon = run.party_dir("daemon:n01");
  EXPECT_EQ(daemon, run.path() + "/daemon-n01");
  EXPECT_TRUE(S_ISDIR(mode_of(daemon)));
  EXPECT_EQ(mode_of(daemon) & 07777, 0700u);
  EXPECT_EQ(run.party_dir("requestor:alice:2"), run.path() + "/requestor-alice-2");
  EXPECT_EQ(run.party_dir("controller"), run.path() + "/controller");
  // Asked again (a party restarted): the same directory, what it holds kept.
  { std::ofstream(daemon + "/kept") << "x"; }
  EXPECT_EQ(run.party_dir("daemon:n01"), daemon);
  EXPECT_TRUE(fs::exists(daemon + "/kept"));
}

TEST(RunDir, DestructorRemovesEverythingInside) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  auto run = std::make_unique<RunDir>();
  const std::string path = run->path();
  const std::string party = run->party_dir("daemon:n02");
  fs::create_directories(party + "/deep/deeper");
  { std::ofstream(party + "/deep/deeper/rendezvous") << "uri"; }
  { std::ofstream(path + "/at-the-top") << "x"; }
  ASSERT_EQ(::chmod((party + "/deep/deeper/rendezvous").c_str(), 0400), 0);
  ASSERT_FALSE(empty_dir(tmp.path()));
  run.reset();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(empty_dir(tmp.path())) << "something of the run is left in " << tmp.path();
}

TEST(RunDir, ForeignDirIsOutsideTheRunGivenToItsUserAndRemovedWithIt) {
  ScratchDir tmp;
  const ScopedEnv env("TMPDIR", tmp.path());
  auto run = std::make_unique<RunDir>();
  const std::string foreign = run->foreign_dir("requestor:bob", ::getuid(), ::getgid());
  EXPECT_EQ(fs::path(foreign).parent_path(), fs::path(tmp.path()));
  EXPECT_TRUE(foreign.starts_with(run->path() + "-requestor-bob-")) << foreign;
  EXPECT_EQ(mode_of(foreign) & 07777, 0700u);
  struct stat st {};
  ASSERT_EQ(::stat(foreign.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::getuid());
  { std::ofstream(foreign + "/tool.uri") << "uri"; }
  run.reset();
  EXPECT_FALSE(fs::exists(foreign));
  EXPECT_TRUE(empty_dir(tmp.path()));
}

}  // namespace
}  // namespace pmixflow::emul
