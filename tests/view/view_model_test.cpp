// The viewer's replay model, without any rendering: the state it gives at chosen times on logs
// the simulator writes from the shipped scenarios (the demo, an activation, a pause and a
// preemption, a failed node, a spawn with an allocation), the same state however it is reached
// (from a copy or from the start), a cut log read up to where it stops, a damaged log refused
// as every reader refuses it, a log followed while it is written, and a short recv shown whole.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

#include <sys/wait.h>
#include <unistd.h>

#include "damaged_run.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/view/explain.hpp"
#include "pmixflow/view/run_model.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::view {
namespace {

namespace fs = std::filesystem;
using test::run_pmixflow;
using test::scratch_dir;

class ViewModel : public ::testing::Test {
 protected:
  ~ViewModel() override {
    for (const auto& d : dirs_) fs::remove_all(d);
  }
  // Runs the simulator on a shipped scenario (empty: the demo; `option` --trace for a trace)
  // and gives the run directory.
  fs::path simulate(const std::string& scenario, const std::vector<std::string>& more = {},
                    const std::string& option = "--scenario");

 private:
  std::vector<fs::path> dirs_;
};

fs::path ViewModel::simulate(const std::string& scenario, const std::vector<std::string>& more,
                             const std::string& option) {
  const auto dir = scratch_dir(scenario.empty() ? "demo" : fs::path(scenario).stem().string());
  dirs_.push_back(dir);
  std::vector<std::string> args{"sim", "--out", (dir / "run").string()};
  if (!scenario.empty()) args.insert(args.end(), {option, std::string(PMIXFLOW_SOURCE_DIR) + "/" + scenario});
  args.insert(args.end(), more.begin(), more.end());
  const auto r = run_pmixflow(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir / "run";
}

NodeLook look(const RunModel& m, double t, const std::string& node) {
  const auto i = m.find_node(node);
  EXPECT_TRUE(i) << node;
  return look_of(m.machine_at(t).nodes().at(*i));
}

SessionPhase phase(const RunModel& m, std::uint32_t id, double t) {
  const auto s = m.find_session(id);
  EXPECT_TRUE(s) << "session " << id;
  const auto p = phase_at(m.sessions().at(*s), t);
  EXPECT_TRUE(p) << "session " << id << " at " << t;
  return p.value_or(SessionPhase::Instantiating);
}

TEST_F(ViewModel, TheDemoShowsTheDvmGrowingSessionsAndEveryRequestsPath) {
  const RunModel m(simulate(""));
  EXPECT_TRUE(m.complete());
  EXPECT_FALSE(m.problem());
  EXPECT_EQ(m.nodes().size(), 9u);  // n01..n08 and the head node
  // At start-up only n01 and n02 get daemons; the rest are outside the DVM.
  EXPECT_EQ(look(m, 0, "n01"), NodeLook::DaemonStarting);
  EXPECT_EQ(look(m, 0, "n05"), NodeLook::OutsideDvm);
  EXPECT_EQ(look(m, 0.9, "n01"), NodeLook::Free);
  // alice's job runs on n01 from just after t=1.
  EXPECT_EQ(look(m, 1.5, "n01"), NodeLook::Running);
  EXPECT_EQ(phase(m, 1, 1.5), SessionPhase::Active);
  // bob's session holds n03 before its daemon has started: allocated without a daemon.
  const auto bob = m.find_session(2);
  ASSERT_TRUE(bob);
  const auto& granted = m.sessions()[*bob];
  EXPECT_EQ(granted.alloc, "alloc-2");
  EXPECT_EQ(granted.owner, "bob.0");
  const auto n03 = *m.find_node("n03");
  std::size_t after = granted.event;
  while (after < m.events().size() && m.machine_after(after).nodes()[n03].sessions == 0) ++after;
  EXPECT_EQ(look_of(m.machine_after(after).nodes()[n03]), NodeLook::AllocatedNoDaemon);
  // Its daemon is started at the same instant: by the end of that instant it is starting.
  EXPECT_EQ(look(m, granted.phases.front().first, "n03"), NodeLook::DaemonStarting);
  // alice's EXTEND to 30 s in all, at t=10: the RM re-arms her limit with what is left, from then.
  const auto& alice = m.sessions()[*m.find_session(1)];
  EXPECT_NEAR(alice.limit_from, 10, 0.01);
  EXPECT_NEAR(alice.limit_from + alice.time_limit, 1 + 30, 0.05);
  // The end: every session reclaimed, every call answered.
  for (const auto& s : m.sessions()) EXPECT_EQ(phase_at(s, m.end_time()), SessionPhase::Reclaimed) << s.id;
  std::size_t calls = 0;
  for (const auto& r : m.requests()) {
    if (r.call == kNone) continue;
    ++calls;
    EXPECT_NE(r.answered, kNone) << r.corr;
  }
  EXPECT_EQ(calls, 8u);
}

TEST_F(ViewModel, ARelayedRequestsPathGoesThroughItsDaemonAndComesBack) {
  const RunModel m(simulate(""));
  const auto alice = m.find_request("alice#1");
  ASSERT_TRUE(alice);
  const auto& r = m.requests()[*alice];
  EXPECT_EQ(m.parties()[r.requestor].name, "requestor:alice");
  EXPECT_EQ(r.status, Status::Success);
  std::vector<std::string> hops;
  for (auto i : r.messages) {
    const auto& msg = m.messages()[i];
    EXPECT_NE(msg.recv, kNone) << "every hop arrived";
    hops.push_back(m.parties()[msg.from].name + ">" + m.parties()[msg.to].name);
  }
  const std::vector<std::string> there_and_back{"requestor:alice>daemon:n01", "daemon:n01>controller",
                                                "controller>scheduler",       "scheduler>controller",
                                                "controller>daemon:n01",      "daemon:n01>requestor:alice"};
  for (const auto& hop : there_and_back) EXPECT_NE(std::find(hops.begin(), hops.end(), hop), hops.end()) << hop;
  // The attributes it carried, under their PMIx names.
  const auto attrs = attributes(r.info);
  ASSERT_FALSE(attrs.empty());
  EXPECT_EQ(attrs[0].name, "PMIX_ALLOC_NUM_CPUS");
  EXPECT_EQ(attrs[0].key, "pmix.alloc.ncpus");
  EXPECT_EQ(attrs[0].value, "4");
  // Teaching mode: each step captioned, with the section of docs/flow.md it illustrates.
  const auto steps = request_steps(m, *alice);
  ASSERT_GT(steps.size(), 10u);
  const auto first = caption(m, steps.front());
  EXPECT_NE(first.title.find("requestor:alice calls PMIX_ALLOC_NEW"), std::string::npos) << first.title;
  EXPECT_NE(first.section.find("§2.1"), std::string::npos) << first.section;
  bool instantiation_explained = false;
  for (auto s : steps) instantiation_explained |= caption(m, s).section.find("§2.4") != std::string::npos;
  EXPECT_TRUE(instantiation_explained);
}

TEST_F(ViewModel, AShortRecvIsCaptionedWithTheMessageItsSendCarried) {
  // Version 3 writes a recv that carries what its send did as `from` and `id` only.
  const RunModel m(simulate(""));
  std::size_t short_recvs = 0;
  for (std::size_t i = 0; i < m.events().size(); ++i) {
    const auto& row = m.events()[i];
    if (row.kind != log::EventKind::Recv || row.send == kNone) continue;
    ++short_recvs;
    EXPECT_EQ(m.events()[row.send].kind, log::EventKind::Send);
    const auto line = nlohmann::json::parse(m.line_text(i));
    ASSERT_TRUE(line.contains("msg")) << m.line_text(i);
    const auto title = caption(m, i).title;
    EXPECT_NE(title.find(" receives " + line["msg"].get<std::string>() + " from "), std::string::npos) << title;
  }
  EXPECT_GT(short_recvs, 50u);
}

TEST_F(ViewModel, AnActivationStartsDaemonsOnNodesOutsideTheDvm) {
  const RunModel m(simulate("traces/activate.jsonl"));
  EXPECT_EQ(look(m, 0.5, "n02"), NodeLook::Free);
  EXPECT_EQ(look(m, 0.5, "n03"), NodeLook::OutsideDvm);
  EXPECT_EQ(look(m, 1.02, "n03"), NodeLook::DaemonStarting);
  EXPECT_EQ(look(m, 1.5, "n08"), NodeLook::Free);
  EXPECT_EQ(look(m, 4.5, "n01"), NodeLook::Withheld);    // bob's reservation, no app
  EXPECT_EQ(look(m, 5.5, "n01"), NodeLook::OutsideDvm);  // released: its daemon went away with it
}

TEST_F(ViewModel, PausedAndPreemptedSessionsShowTheirJobsSuspended) {
  const RunModel paused(simulate("tests/scenarios/session-pause-resume.jsonl"));
  EXPECT_EQ(phase(paused, 1, 4), SessionPhase::Active);
  EXPECT_EQ(phase(paused, 1, 7), SessionPhase::Paused);
  EXPECT_EQ(phase(paused, 1, 12), SessionPhase::Active);
  const auto node = paused.sessions()[*paused.find_session(1)].nodes.front();
  EXPECT_EQ(look_of(paused.machine_at(7).nodes()[node]), NodeLook::Suspended);
  EXPECT_EQ(look_of(paused.machine_at(12).nodes()[node]), NodeLook::Running);

  const RunModel preempted(simulate("tests/scenarios/session-preempt-named.jsonl"));
  EXPECT_EQ(phase(preempted, 1, 20), SessionPhase::Preempted);
  EXPECT_EQ(phase(preempted, 1, 41), SessionPhase::Active);
}

TEST_F(ViewModel, AFailedNodeIsShownFailedAndItsSessionReclaimed) {
  const RunModel m(simulate("tests/scenarios/fail-node-down.jsonl"));
  EXPECT_EQ(look(m, 3, "n02"), NodeLook::Running);
  EXPECT_EQ(phase(m, 1, 3), SessionPhase::Active);
  EXPECT_EQ(look(m, 6, "n02"), NodeLook::Failed);
  EXPECT_EQ(look(m, 6, "n01"), NodeLook::Free);
  EXPECT_EQ(phase(m, 1, 6), SessionPhase::Reclaimed);
  // The later request is granted around the dead node.
  EXPECT_EQ(look(m, 11.5, "n01"), NodeLook::Withheld);
  EXPECT_EQ(look(m, 11.5, "n02"), NodeLook::Failed);
  const auto c = m.find_request("c#1");
  ASSERT_TRUE(c);
  bool granted = false;
  for (const auto& x : m.executions())
    if (x.request == *c) granted = x.slot_count() == 56;
  EXPECT_TRUE(granted);
}

TEST_F(ViewModel, ASpawnWithAnAllocationRunsItsJobInTheGrantedSession) {
  const RunModel m(simulate("tests/scenarios/spawn-alloc-new.jsonl"));
  const RequestRecord* spawn = nullptr;
  for (const auto& r : m.requests())
    if (r.what.find("PMIx_Spawn") != std::string::npos) spawn = &r;
  ASSERT_NE(spawn, nullptr);
  EXPECT_EQ(spawn->status, Status::Success);
  ASSERT_FALSE(m.jobs().empty());
  const JobRecord* job = nullptr;
  for (const auto& j : m.jobs())
    if (j.corr == spawn->corr) job = &j;
  ASSERT_NE(job, nullptr);
  ASSERT_TRUE(job->started);
  const double during = *job->started + 1e-6;
  EXPECT_EQ(phase(m, job->session, during), SessionPhase::Active);
  for (auto n : job->nodes) EXPECT_EQ(look_of(m.machine_at(during).nodes()[n]), NodeLook::Running);
}

// The machine at any point is what the node events up to there say, whether the model got
// there from one of its copies or not: checked against a plain reading of the log.
TEST_F(ViewModel, TheStateAtAnyPointIsTheSameAsReplayingTheLogFromTheStart) {
  const auto run = simulate("traces/golden.swf", {"--policy", "easy"}, "--trace");
  const RunModel m(run, {.changes_per_copy = 64});
  ASSERT_GT(m.copies(), 20u) << "enough copies of the machine to land between them";
  std::mt19937 rng(11);
  std::vector<std::size_t> points{0, m.events().size()};
  for (int i = 0; i < 12; ++i) points.push_back(std::uniform_int_distribution<std::size_t>(0, m.events().size())(rng));
  std::sort(points.begin(), points.end());
  log::LogReader reader((run / "events.jsonl").string());
  std::map<std::string, std::pair<std::string, std::string>> expected;  // node -> daemon, use
  std::size_t read = 0;
  for (auto point : points) {
    while (read < point) {
      const auto* e = reader.next();
      ASSERT_NE(e, nullptr);
      ++read;
      if (e->kind == log::EventKind::Node)
        expected[std::string(*e->str(log::Field::node))] = {std::string(*e->str(log::Field::daemon)),
                                                            std::string(*e->str(log::Field::use))};
    }
    const auto state = m.machine_after(point);
    for (const auto& [node, du] : expected) {
      const auto& n = state.nodes()[*m.find_node(node)];
      const char* daemons[] = {"none", "starting", "up", "failed"};
      const char* uses[] = {"free", "withheld", "busy"};
      EXPECT_EQ(daemons[static_cast<int>(n.daemon)], du.first) << node << " after " << point;
      EXPECT_EQ(uses[static_cast<int>(n.use)], du.second) << node << " after " << point;
    }
  }
  // The utilisation never exceeds the machine, and ends at zero with an empty queue.
  EXPECT_LE(m.used_slots().max(), static_cast<double>(m.total_slots()));
  EXPECT_EQ(m.used_slots().at(m.end_time()), 0);
  EXPECT_EQ(m.queue_length().at(m.end_time()), 0);
}

TEST_F(ViewModel, ACutLogIsReadUpToItsBadLineWhichIsNamed) {
  const auto run = simulate("");
  const auto log = test::slurp(run / "events.jsonl");
  std::size_t at = 0;
  for (int line = 0; line < 100; ++line) at = log.find('\n', at) + 1;
  const auto cut = run.parent_path() / "cut.jsonl";
  std::ofstream(cut) << log.substr(0, at + 20);  // 100 whole lines, then part of the 101st
  const RunModel m(cut);
  EXPECT_FALSE(m.complete());
  ASSERT_TRUE(m.problem());
  EXPECT_EQ(m.problem()->line(), 101u);
  EXPECT_EQ(m.events().size(), 99u);  // the header is line 1
  // A bad line is no cut: refused, as every reader of pmixflow refuses it.
  const auto garbled = run.parent_path() / "garbled.jsonl";
  std::ofstream(garbled) << log.substr(0, at) << "{\"t\":5,\"ev\":\"node\",\"who\":\"controller\",\"node\":7}\n";
  try {
    const RunModel g(garbled);
    ADD_FAILURE() << "a log with a bad line opened";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 101u);
    EXPECT_EQ(e.field(), "node");
  }
  EXPECT_THROW(RunModel(run.parent_path() / "nothing-here"), InputError);
}

// What opening `run` in the model says, in a child process with a deadline: a model that waited
// on a named pipe would be killed there, never hang the suite.
std::string model_refusal(const fs::path& run) {
  int out[2];
  if (::pipe(out) != 0) return "(no pipe)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    ::alarm(60);
    std::string said = "(opened)";
    try {
      const RunModel m(run);
    } catch (const std::exception& e) {
      said = e.what();
    }
    const auto written = ::write(out[1], said.data(), said.size());
    ::_exit(written == static_cast<ssize_t>(said.size()) ? 0 : 1);
  }
  ::close(out[1]);
  std::string said;
  char buffer[4096];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) said.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return "(killed by signal " + std::to_string(WTERMSIG(status)) + ")";
  return said;
}

// The viewer refuses each damaged run as `pmixflow report` does, with the very same message.
TEST_F(ViewModel, ADamagedRunIsRefusedAsReportRefusesIt) {
  const auto good = simulate("");
  const auto bad = good.parent_path() / "bad";
  for (const auto& [damage, name] : test::all_damages()) {
    SCOPED_TRACE(name);
    test::damage_run(good, bad, damage);
    const auto r = run_pmixflow({"report", bad.string(), "--out", (good.parent_path() / "out").string()}, "", 60);
    ASSERT_EQ(r.exit_code, 2) << r.err;
    const std::string prefix = "pmixflow report: ";
    ASSERT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_EQ(model_refusal(bad) + "\n", r.err.substr(prefix.size()));
  }
}

TEST_F(ViewModel, ACompressedLogAndALogWithoutHopsShowTheSameMachineAndSessions) {
  const auto whole = simulate("traces/session-control.jsonl");
  const auto gz = simulate("traces/session-control.jsonl", {"--gzip-events"});
  const auto state = simulate("traces/session-control.jsonl", {"--events", "state"});
  const RunModel a(whole), b(gz), c(state);
  ASSERT_TRUE(a.complete() && b.complete() && c.complete());
  EXPECT_EQ(b.events().size(), a.events().size());  // the run directory's events.jsonl.gz
  EXPECT_EQ(c.events().size(), a.events().size());  // the state it shows needs no hop
  ASSERT_EQ(c.sessions().size(), a.sessions().size());
  for (const double t : {1.0, 5.0, 20.0}) {
    const auto at_a = a.machine_at(t), at_c = c.machine_at(t);  // kept: nodes() refers into them
    const auto& na = at_a.nodes();
    const auto& nc = at_c.nodes();
    ASSERT_EQ(na.size(), nc.size());
    for (std::size_t i = 0; i < na.size(); ++i)
      EXPECT_EQ(look_of(na[i]), look_of(nc[i])) << "node " << i << " at " << t;
  }
}

TEST_F(ViewModel, ALogBeingWrittenIsFollowedToItsEnd) {
  const auto run = simulate("");
  const auto log = test::slurp(run / "events.jsonl");
  const auto live = run.parent_path() / "live.jsonl";
  std::size_t half = log.size() / 2;
  std::ofstream(live) << log.substr(0, half);
  RunModel m(live, {.follow = true});
  EXPECT_TRUE(m.following());
  EXPECT_FALSE(m.problem());
  const auto first = m.events().size();
  EXPECT_GT(first, 0u);
  std::ofstream(live, std::ios::app) << log.substr(half);
  EXPECT_GT(m.read_more(), 0u);
  EXPECT_TRUE(m.complete());
  EXPECT_FALSE(m.following());
  const RunModel whole(run);
  EXPECT_EQ(m.events().size(), whole.events().size());
  EXPECT_EQ(m.machine_at(m.end_time()).nodes(), whole.machine_at(whole.end_time()).nodes());
}

// Nodes are grouped as a platform names them: alike but for their last number.
TEST_F(ViewModel, NodesAreGroupedAsThePlatformNamesThem) {
  const auto dir = scratch_dir("groups");
  const auto log = dir / "events.jsonl";
  std::ofstream(log) << R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{)"
                     << R"("scenario":"x","platform":"x","topology":"x","head":"head","policy":"fcfs",)"
                     << R"("nodes":6,"slots_per_node":4,)"
                     << R"("compute_nodes":"rack1-n[1-2],rack2-n[1-2],node-1.site.org,node-2.site.org"}})"
                     << "\n"
                     << R"({"t":0,"ev":"log.end","who":"run","end":"quiescent","events":0,"stats":{}})"
                     << "\n";
  const RunModel m(log);
  fs::remove_all(dir);
  ASSERT_EQ(m.groups().size(), 3u);
  EXPECT_EQ(m.groups()[0].name, "rack1-n*");
  EXPECT_EQ(m.groups()[1].name, "rack2-n*");
  EXPECT_EQ(m.groups()[2].name, "node-*.site.org");
  for (const auto& g : m.groups()) EXPECT_EQ(g.nodes.size(), 2u) << g.name;
  EXPECT_EQ(m.nodes()[*m.find_node("rack2-n1")].slot_count, 4u);
  EXPECT_EQ(m.total_slots(), 24u);
}

}  // namespace
}  // namespace pmixflow::view
