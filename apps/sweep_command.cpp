// `pmixflow sweep SPEC`: a study, the product of the spec's policies, traces, seeds and options,
// run here (--jobs at once) or as a Slurm job array (--slurm), each run in OUT/runs/ID, every
// run's metrics in OUT/sweep.csv. Runs already done are skipped; exit 1 when a run failed.
#include <unistd.h>

#include <iostream>
#include <set>
#include <thread>

#include "commands.hpp"
#include "number_options.hpp"
#include "option_rules.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/stop_signals.hpp"
#include "sweep_io.hpp"
#include "sweep_local.hpp"
#include "sweep_slurm.hpp"
#include "sweep_table.hpp"

namespace pmixflow::cli {
namespace {

namespace fs = std::filesystem;

// The binary the runs are made with: this one, whatever name or path it was started by.
fs::path own_binary() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find pmixflow's own binary (/proc/self/exe): " + ec.message());
  return exe;
}

// The options of `pmixflow sim`'s own command line ("--nodes"), so that the spec is checked
// against the options sim really has.
std::vector<std::string> sim_options() {
  CLI::App app;
  CLI::App* sim = nullptr;
  const auto command = add_sim(app, sim);
  std::vector<std::string> names;
  for (const CLI::Option* option : sim->get_options({}))
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

class SweepCommand final : public Command {
 public:
  explicit SweepCommand(CLI::App& sweep) {
    sweep.add_option("SPEC", spec_, "The study: a file of 'key = value, value' lines (README, \"Sweeps\").")
        ->required();
    auto* sbatch =
        sweep.add_option("SBATCH_OPTIONS", sbatch_options_,
                         "With --slurm, after '--': options for sbatch (e.g. -- --partition=debug --time=30).");
    sweep.add_option("--out", out_, "The sweep's directory (default: the spec's 'out').");
    auto* jobs =
        add_whole<unsigned>(sweep, "--jobs", jobs_, 1, 4096, "Runs at once on this machine (default: its cores).")
            ->default_str(std::to_string(jobs_));
    auto* only =
        sweep
            .add_option("--only", only_,
                        "Run this run again (its id, the name of its directory under runs/), whether done or not; "
                        "repeatable. sweep.csv still lists every run.")
            ->allow_extra_args(false);  // one id per --only: a word after it is the SPEC
    auto* slurm =
        sweep.add_flag("--slurm", slurm_, "Run the pending runs as a Slurm job array: submit it, wait, gather.");
    rules_.needs(sbatch, slurm, "they are sbatch's, and only --slurm runs sbatch");
    auto* poll = add_positive_real(sweep, "--poll", poll_s_, 3600,
                                   "With --slurm: seconds between two looks at squeue (default 5).");
    rules_.needs(poll, slurm, "a local sweep waits for its runs, it does not poll squeue");
    rules_.excludes(jobs, slurm, "Slurm decides how many of the array's tasks run at once");
    task_option_ =
        add_whole<std::size_t>(sweep, "--task", task_, 0, SIZE_MAX,
                               "Run task N of the submitted array only (what the array's script runs on a node).");
    // A task is one run, the one its array's task list names: nothing else is chosen there.
    rules_.excludes(task_option_, slurm, "a task runs on a node of the array --slurm submitted, it submits nothing");
    rules_.excludes(only, task_option_, "a task runs the run its array's task list names");
    rules_.excludes(jobs, task_option_, "a task is one run");
    sweep.add_flag("--quiet", quiet_, "Print nothing but errors.");
    rules_.check_after_parsing(sweep);
  }

  int run() override {
    return guarded("sweep", [&] {
      const SweepSpec spec = read_sweep_spec(spec_, sim_options());
      const fs::path out = out_dir(spec);
      const std::vector<SweepRun> runs = expand_runs(spec);
      if (task_option_->count() > 0) return run_task(spec, runs, out);
      const std::vector<const SweepRun*> todo = select(runs, out);
      fs::create_directories(out);
      const LocalEnd end = todo.empty() ? LocalEnd{} : execute(spec, todo, out);
      write_sweep_csv(out, runs);
      if (end.stopped_by != 0) return stopped(end);
      return summarize(runs, todo.size(), out);
    });
  }

 private:
  fs::path out_dir(const SweepSpec& spec) const {
    if (!out_.empty()) return fs::absolute(out_).lexically_normal();
    if (spec.out.empty())
      throw InputError(spec_, 0, "out", "missing: name the sweep's directory ('out = DIR') or give --out");
    return spec.out;
  }

  // The runs to make: those not done, or those named by --only (again, done or not).
  std::vector<const SweepRun*> select(const std::vector<SweepRun>& runs, const fs::path& out) const {
    std::set<std::string> only(only_.begin(), only_.end());
    std::vector<const SweepRun*> todo;
    for (const auto& run : runs) {
      const bool named = only.erase(run.id) > 0;
      if (only_.empty() ? run_state(run_dir(out, run)) != RunState::done : named) todo.push_back(&run);
    }
    if (!only.empty())
      throw InputError("", 0, "--only",
                       "'" + *only.begin() + "' is not a run of " + spec_ + " (its runs are listed in sweep.csv)");
    return todo;
  }

  LocalEnd execute(const SweepSpec& spec, const std::vector<const SweepRun*>& todo, const fs::path& out) const {
    const bool terminal = !quiet_ && ::isatty(STDERR_FILENO);
    if (!slurm_) return run_locally(todo, LocalSetup{own_binary(), out, jobs_, terminal});
    // Submitted runs are not done until their task says so: a task Slurm never runs leaves its
    // run "did not run", not with the exit status of an earlier attempt.
    for (const auto* run : todo) forget_exit(run_dir(out, *run));
    SlurmSetup setup{own_binary(), spec.file, out, sbatch_options_, poll_s_.value_or(5), terminal};
    const std::string job = run_on_slurm(todo, setup);
    if (!quiet_) std::cout << "sweep: Slurm job " << job << " ended (" << todo.size() << " tasks)\n";
    return {};
  }

  // Stopped by Ctrl-C or SIGTERM: said even with --quiet, with the command that goes on.
  int stopped(const LocalEnd& end) const {
    std::cerr << "pmixflow sweep: " << stopped_by(end.stopped_by) << ": no run started after it, " << end.stopped
              << (end.stopped == 1 ? " run" : " runs") << " stopped (their logs cut, no summary.json)\n"
              << "  go on with the runs not done: " << rerun_command("") << "\n";
    return kStoppedBySignal;
  }

  // On a node, as one task of the array: the run the task list names, in the foreground.
  int run_task(const SweepSpec& spec, const std::vector<SweepRun>& runs, const fs::path& out) const {
    const std::string id = task_run(out, task_);
    for (const auto& run : runs)
      if (run.id == id) return run_one(run, LocalSetup{own_binary(), out, 1, false});
    throw InputError((out / kTaskList).string(), task_ + 1, "",
                     "names the run '" + id + "', which " + spec.file.string() + " no longer makes");
  }

  // The command that runs `id` again (every run not done, without one).
  std::string rerun_command(const std::string& id) const {
    std::string cmd = "pmixflow sweep " + shell_word(spec_);
    if (!out_.empty()) cmd += " --out " + shell_word(out_);
    if (!id.empty()) cmd += " --only " + shell_word(id);
    if (slurm_) cmd += " --slurm";
    if (!sbatch_options_.empty()) cmd += " --";  // the rest is sbatch's
    for (const auto& option : sbatch_options_) cmd += " " + shell_word(option);
    return cmd;
  }

  static std::string slurm_logs(const fs::path& out) {
    std::error_code ec;
    return fs::is_directory(out / "slurm", ec) ? " (the Slurm tasks' output: " + (out / "slurm").string() + ")" : "";
  }

  int summarize(const std::vector<SweepRun>& runs, std::size_t made, const fs::path& out) const {
    std::size_t done = 0;
    std::vector<const SweepRun*> failed;
    for (const auto& run : runs) {
      if (run_state(run_dir(out, run)) == RunState::done)
        ++done;
      else
        failed.push_back(&run);
    }
    if (!quiet_)
      std::cout << "sweep: " << runs.size() << " runs, " << done << " done (" << runs.size() - made
                << " skipped as done before), " << failed.size() << " failed or not run\n"
                << "  table: " << (out / "sweep.csv").string() << "\n";
    for (const auto* run : failed) {
      const fs::path dir = run_dir(out, *run);
      const int status = recorded_exit(dir);
      std::cerr << "sweep: run " << run->id << " "
                << (status < 0 ? "did not run" + slurm_logs(out)
                               : "failed (exit " + std::to_string(status) + "); its log: " + (dir / "sim.log").string())
                << "\n  rerun it alone: " << rerun_command(run->id) << "\n";
    }
    if (failed.size() > 1) std::cerr << "sweep: rerun every run not done: " << rerun_command("") << "\n";
    return failed.empty() ? 0 : 1;
  }

  OptionRules rules_;
  std::string spec_, out_;
  std::vector<std::string> sbatch_options_, only_;
  unsigned jobs_ = std::max(1u, std::thread::hardware_concurrency());
  bool slurm_ = false;
  std::optional<double> poll_s_;
  std::size_t task_ = 0;
  CLI::Option* task_option_ = nullptr;
  bool quiet_ = false;
};

}  // namespace

std::unique_ptr<Command> add_sweep(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("sweep",
                           "Run a study: every combination of the policies, traces, seeds and sim options a spec "
                           "names, here on all cores or as a Slurm job array (--slurm), each run in OUT/runs/ID and "
                           "every run's metrics in OUT/sweep.csv. Runs already done are skipped. Exit status 0, 1 when "
                           "a run failed (each is listed with the command that reruns it), 2 on bad input.");
  return std::make_unique<SweepCommand>(*sub);
}

}  // namespace pmixflow::cli
