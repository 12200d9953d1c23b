#include "sweep_slurm.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "pmixflow/vocab/errors.hpp"
#include "sweep_io.hpp"

extern char** environ;

namespace pmixflow::cli {
namespace {

namespace fs = std::filesystem;

struct Captured {
  int status = -1;
  std::string out;
};

// A pipe's two ends, closed however the call goes.
class Pipe {
 public:
  Pipe() {
    if (::pipe2(ends_, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    close_write();
    if (ends_[0] >= 0) ::close(ends_[0]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int read_end() const { return ends_[0]; }
  int write_end() const { return ends_[1]; }
  void close_write() {
    if (ends_[1] >= 0) ::close(ends_[1]);
    ends_[1] = -1;
  }

 private:
  int ends_[2] = {-1, -1};
};

// Runs a Slurm command found on PATH, its standard output captured, its errors left on ours
// (sbatch's own words are the best account of why it refused a job).
Captured capture(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Pipe pipe;
  pid_t pid = 0;
  int err = 0;
  {
    FileActions actions;
    ::posix_spawn_file_actions_adddup2(actions.get(), pipe.write_end(), STDOUT_FILENO);
    ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    err = ::posix_spawnp(&pid, argv[0], actions.get(), nullptr, argv.data(), environ);
  }
  pipe.close_write();
  if (err != 0)
    throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(err) + " (is Slurm installed?)");
  Captured result;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe.read_end(), buffer, sizeof buffer);
    if (n > 0) result.out.append(buffer, static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  return result;
}

// The array script: a task per line of the task list. It names everything by absolute path,
// so it can be resubmitted by hand (`sbatch OUT/sweep.sbatch`) from anywhere.
std::string script(std::size_t tasks, const SlurmSetup& s) {
  std::ostringstream text;
  text << "#!/bin/sh\n"
       << "# Written by pmixflow sweep: one task per line of " << kTaskList << ".\n"
       << "#SBATCH --job-name=pmixflow-sweep\n"
       << "#SBATCH --array=0-" << tasks - 1 << "\n"
       << "#SBATCH --ntasks=1\n"
       << "#SBATCH --output=" << (s.out / "slurm" / "task-%a.out").string() << "\n"
       << "exec " << shell_word(s.exe.string()) << " sweep " << shell_word(s.spec.string()) << " --out "
       << shell_word(s.out.string()) << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
  return text.str();
}

std::string submit(const fs::path& script_file, const SlurmSetup& s) {
  std::vector<std::string> args{"sbatch", "--parsable"};
  args.insert(args.end(), s.sbatch_options.begin(), s.sbatch_options.end());
  args.push_back(script_file.string());
  const Captured r = capture(args);
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = r.out.substr(0, r.out.find_first_of(";\n"));
  if (r.status != 0 || id.empty())
    throw std::runtime_error("sbatch refused the sweep's job array (exit " + std::to_string(r.status) +
                             "); its script is " + script_file.string());
  return id;
}

struct Tasks {
  std::size_t left = 0;  // still listed: queued, held, running or completing
  std::size_t running = 0;
  std::size_t held = 0;  // queued, but held: they will not start unless someone releases them
  std::string held_reason;
};

// The array's tasks squeue still lists; none once Slurm no longer knows the job, which is what
// squeue's failure means after a submission.
Tasks tasks_of(const std::string& job) {
  const Captured r = capture({"squeue", "--noheader", "--array", "--jobs=" + job, "--format=%T|%r"});
  Tasks t;
  if (r.status != 0) return t;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const std::string state = line.substr(0, line.find('|'));
    const std::string reason = line.find('|') == std::string::npos ? "" : line.substr(line.find('|') + 1);
    ++t.left;
    if (state == "RUNNING" || state == "COMPLETING") ++t.running;
    // "JobHeldUser", "JobHeldAdmin", "launch failed requeued held": Slurm's words for a hold.
    if (state == "PENDING" && (reason.find("held") != std::string::npos || reason.find("Held") != std::string::npos)) {
      ++t.held;
      t.held_reason = reason;
    }
  }
  return t;
}

// Waits until no task is left. Tasks that are all held would wait forever: they are cancelled,
// and the runs they held are reported as not run, to be submitted again once the cause is fixed.
void wait_for_array(const std::string& job, std::size_t total, const SlurmSetup& s) {
  for (;;) {
    const Tasks t = tasks_of(job);
    if (t.left == 0) break;
    if (t.held == t.left) {
      if (s.progress) std::fprintf(stderr, "\r%*s\r", 79, "");
      std::fprintf(stderr, "pmixflow sweep: the %zu tasks left of Slurm job %s are held (%s): cancelled (see %s)\n",
                   t.left, job.c_str(), t.held_reason.c_str(), (s.out / "slurm").c_str());
      capture({"scancel", job});
      break;
    }
    if (s.progress) {
      std::fprintf(stderr, "\r  sweep: Slurm job %s: %zu of %zu tasks left, %zu running  ", job.c_str(), t.left, total,
                   t.running);
      std::fflush(stderr);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(s.poll_s));
  }
  if (s.progress) std::fprintf(stderr, "\r%*s\r", 79, "");
}

}  // namespace

std::string run_on_slurm(const std::vector<const SweepRun*>& runs, const SlurmSetup& s) {
  std::string tasks;
  for (const auto* run : runs) tasks += run->id + "\n";
  fs::create_directories(s.out / "slurm");
  write_whole(s.out / kTaskList, tasks);
  const fs::path script_file = s.out / "sweep.sbatch";
  write_whole(script_file, script(runs.size(), s));
  const std::string job = submit(script_file, s);
  if (s.progress) std::fprintf(stderr, "  sweep: submitted Slurm job %s (%zu tasks)\n", job.c_str(), runs.size());
  wait_for_array(job, runs.size(), s);
  return job;
}

std::string task_run(const fs::path& out, std::size_t task) {
  const fs::path list = out / kTaskList;
  std::ifstream in(list);
  if (!in) throw InputError(list.string(), 0, "", "cannot read the task list (was the sweep submitted with --slurm?)");
  std::string id;
  for (std::size_t line = 0; std::getline(in, id); ++line)
    if (line == task) return id;
  throw InputError(list.string(), 0, "", "has no task " + std::to_string(task));
}

}  // namespace pmixflow::cli
