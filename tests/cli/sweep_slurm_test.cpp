// `pmixflow sweep --slurm` through a real Slurm: a private one-node cluster (its own munge,
// slurmctld and slurmd, on loopback, in a temporary directory; tests/cli/private_slurm.sh) runs
// the 3 x 2 x 3 study as a job array, and its sweep.csv agrees with the same study run locally.
// Skipped, saying why, where Slurm or munge is not installed or cannot start.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow_run.hpp"
#include "sweep_study.hpp"

namespace pmixflow::test {
namespace {

namespace fs = std::filesystem;

// A loopback port nobody listens on now (the kernel's pick), for a daemon to take.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

std::string script() { return source_path("tests/cli/private_slurm.sh"); }

// The private cluster, stopped with every daemon it started however the test ends (and, by the
// script's watchdog, when this process is killed).
class PrivateSlurm {
 public:
  // In a short directory of its own: slurmd's sockets are named under it, and a Unix socket's
  // path may not be longer than 107 characters.
  PrivateSlurm() {
    std::string name = "/tmp/pmixflow-slurm-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) return;
    dir_ = name;
    const std::string cmd = "bash " + quote(script()) + " start " + quote(dir_.string()) + " " +
                            std::to_string(free_port()) + " " + std::to_string(free_port()) + " " +
                            std::to_string(::getpid()) + " >" + quote((dir_ / "start.out").string()) + " 2>&1";
    const int raw = std::system(cmd.c_str());
    up_ = WIFEXITED(raw) && WEXITSTATUS(raw) == 0;
    why_ = slurp(dir_ / "start.out");
    if (up_) ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
  }
  ~PrivateSlurm() {
    ::unsetenv("SLURM_CONF");
    if (dir_.empty()) return;
    const std::string cmd = "bash " + quote(script()) + " stop " + quote(dir_.string()) + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << "stopping the private Slurm failed: " << dir_;
    std::error_code ignored;
    if (!::testing::Test::HasFailure()) fs::remove_all(dir_, ignored);  // else its logs are kept
  }
  PrivateSlurm(const PrivateSlurm&) = delete;
  PrivateSlurm& operator=(const PrivateSlurm&) = delete;

  bool up() const { return up_; }
  const std::string& why() const { return why_; }

 private:
  fs::path dir_;
  bool up_ = false;
  std::string why_;
};

// The test's directory, gone at its end unless the test failed (the daemons' logs are there).
struct KeptOnFailure {
  fs::path dir;
  ~KeptOnFailure() {
    std::error_code ignored;
    if (!::testing::Test::HasFailure()) fs::remove_all(dir, ignored);
  }
};

TEST(SweepSlurm, AStudyThroughSlurmAgreesWithTheSameStudyRunHere) {
  const auto dir = scratch_dir("slurm");
  const KeptOnFailure cleanup{dir};
  const auto spec = write_study(dir);
  PrivateSlurm slurm;
  if (!slurm.up()) GTEST_SKIP() << "a private Slurm cannot start here, skipping:\n" << slurm.why();

  const auto local = run_pmixflow({"sweep", spec.string(), "--out", (dir / "local").string(), "--jobs", "2"});
  ASSERT_EQ(local.exit_code, 0) << local.out << local.err;
  const auto t0 = std::chrono::steady_clock::now();
  // Bounded: a cluster that never runs the tasks fails the test (exit 124) rather than holding CI.
  const auto remote = run_pmixflow({"sweep", spec.string(), "--out", (dir / "slurm").string(), "--slurm", "--poll",
                                    "0.5", "--", "--time=10", "--job-name=pmixflow-test"},
                                   "", 300);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(remote.exit_code, 0) << remote.out << remote.err << slurp(dir / "slurm" / "slurm" / "task-0.out");
  EXPECT_TRUE(Contains(remote.out, "Slurm job ")) << remote.out;
  EXPECT_TRUE(Contains(remote.out, "18 runs, 18 done")) << remote.out;
  std::cout << "  the study through Slurm took " << took << " s\n";

  // Every column agrees: the parameters, the states and every simulated metric.
  const auto here = read_csv(dir / "local" / "sweep.csv");
  const auto there = read_csv(dir / "slurm" / "sweep.csv");
  ASSERT_EQ(here.size(), 19u);
  EXPECT_EQ(here, there);
  EXPECT_EQ(slurp(dir / "local" / "sweep.csv"), slurp(dir / "slurm" / "sweep.csv"));
  const auto sbatch = slurp(dir / "slurm" / "sweep.sbatch");
  EXPECT_TRUE(Contains(sbatch, "#SBATCH --array=0-17")) << sbatch;
  EXPECT_TRUE(Contains(sbatch, "--task \"$SLURM_ARRAY_TASK_ID\"")) << sbatch;

  // Submitted again, nothing is left to run: no job is submitted.
  const auto again = run_pmixflow({"sweep", spec.string(), "--out", (dir / "slurm").string(), "--slurm"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(Contains(again.out, "Slurm job ")) << again.out;
  EXPECT_TRUE(Contains(again.out, "18 skipped as done before")) << again.out;

  // Tasks Slurm holds would never run: the sweep cancels them rather than wait for ever, and
  // lists their runs as not run, with the command that submits them again.
  const auto held = run_pmixflow(
      {"sweep", spec.string(), "--out", (dir / "held").string(), "--slurm", "--poll", "0.5", "--", "--hold"}, "", 120);
  EXPECT_EQ(held.exit_code, 1) << held.out << held.err;
  EXPECT_TRUE(Contains(held.err, "are held")) << held.err;
  EXPECT_TRUE(Contains(held.err, "run fcfs__golden__seed1 did not run")) << held.err;
  EXPECT_TRUE(Contains(held.err, "--only fcfs__golden__seed1 --slurm -- --hold")) << held.err;
  const auto table = read_csv(dir / "held" / "sweep.csv");
  ASSERT_EQ(table.size(), 19u);
  EXPECT_EQ(table[1][column(table, "state")], "pending");

  // A job sbatch refuses is bad input: sbatch says why, pmixflow where its script is.
  const auto refused = run_pmixflow(
      {"sweep", spec.string(), "--out", (dir / "refused").string(), "--slurm", "--", "--partition=nosuch"}, "", 120);
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_TRUE(Contains(refused.err, "sbatch refused the sweep's job array")) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "nosuch")) << refused.err;
}

}  // namespace
}  // namespace pmixflow::test
