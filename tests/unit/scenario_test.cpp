// Scenario files (JSON Lines): what a valid file becomes, and how a bad one is refused,
// naming the file, the line and the field.
#include "pmixflow/trace/scenario.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>

#include "fake_env.hpp"  // PrintTo for Status
#include "pmixflow/model/app_behaviour.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

constexpr const char* kFile = "cases/example.jsonl";
const std::string kHeader = R"({"format":"pmixflow-scenario","version":1})";

Scenario parse(const std::string& text) {
  std::istringstream in(text);
  return parse_scenario(in, kFile);
}

using test::Contains;

// Parses `text`, which must be refused; hands the error back for inspection.
InputError refused(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected InputError for:\n" << text;
  return InputError("", 0, "", "none thrown");
}

// The error names the file, the line and the field, in what() as well as in its parts.
void expect_located(const InputError& e, std::size_t line, const std::string& field) {
  EXPECT_EQ(e.file(), kFile);
  EXPECT_EQ(e.line(), line);
  EXPECT_EQ(e.field(), field);
  const std::string where = std::string(kFile) + ":" + std::to_string(line);
  EXPECT_TRUE(Contains(e.what(), where));
  if (!field.empty()) {
    EXPECT_TRUE(Contains(e.what(), "field '" + field + "'"));
  }
}

std::string op_line(const std::string& fields) {
  return R"({"at":1,"op":"alloc","requestor":"alice","via":"controller",)" + fields + "}";
}

TEST(Scenario, FullHeaderAndEveryOperation) {
  const std::string text =
      R"({"format":"pmixflow-scenario","version":1,"name":"example","description":"what it shows",)"
      R"("controller":{"start":0.5,"connect_to_scheduler":false,"no_scheduler":"refuse","dvm":"n01,n02"},)"
      R"("scheduler":{"start":null,"attach":false,"policy":"fcfs"}})"
      "\n"
      R"({"at":1,"op":"alloc","requestor":"alice","via":"daemon:n01","directive":"PMIX_ALLOC_NEW",)"
      R"("info":{"PMIX_ALLOC_NUM_CPUS":4,"PMIX_ALLOC_TIME":"2:00","PMIX_ALLOC_REQ_ID":"a1","PMIX_REQUESTOR":"job.7.3"},)"
      R"("app":{"cmd":"sleep","argv":["30"],"np":4},"expect":{"status":"PMIX_SUCCESS"}})"
      "\n\n"  // blank lines are skipped but still counted
      R"({"at":2,"op":"alloc","requestor":"bob","via":"scheduler","directive":"EXTEND"})"
      "\n";
  std::string t = text;
  t += R"({"at":3,"op":"session_control","requestor":"alice","via":"controller","session":1,)"
       R"("directives":{"PMIX_SESSION_TERMINATE":true,"pmix.alloc.time":30},"expect":{"status":"PMIX_ERR_NOT_FOUND"}})"
       "\n";
  t +=
      R"({"at":4,"op":"session_control","requestor":"alice","via":"daemon:+n1","session":"all",)"
      R"("directives":{"PMIX_SESSION_INSTANTIATE":true},"app":[{"cmd":"a.out","runtime":5,"exit_code":3},{"cmd":"sleep","argv":["1"]}]})"
      "\n";
  t += R"({"at":6,"op":"scheduler_detach","comment":"gone"})"
       "\n";
  t += R"({"at":9,"op":"scheduler_attach"})"
       "\n";
  const Scenario sc = parse(t);

  EXPECT_EQ(sc.origin, kFile);
  EXPECT_EQ(sc.name, "example");
  EXPECT_EQ(sc.description, "what it shows");
  EXPECT_EQ(sc.controller_start, 0.5);
  EXPECT_FALSE(sc.connect_to_scheduler);
  EXPECT_EQ(sc.no_scheduler, NoSchedulerMode::Refuse);
  EXPECT_EQ(sc.dvm, "n01,n02");
  EXPECT_FALSE(sc.scheduler_start);  // null: not until an attach
  EXPECT_FALSE(sc.scheduler_attaches);
  EXPECT_EQ(sc.policy, "fcfs");

  ASSERT_EQ(sc.calls.size(), 4u);
  // 1: alloc through a daemon, typed info, an app carried as PMIX_SESSION_APP, an expectation.
  const ScenarioCall& c1 = sc.calls[0];
  EXPECT_EQ(c1.line, 2u);
  EXPECT_EQ(c1.at, 1.0);
  EXPECT_EQ(c1.requestor, "alice");
  EXPECT_EQ(c1.via, "daemon:n01");
  EXPECT_EQ(c1.expect_status, Status::Success);
  const auto* a1 = std::get_if<AllocRequest>(&c1.call);
  ASSERT_NE(a1, nullptr);
  EXPECT_EQ(a1->directive, Directive::New);
  EXPECT_EQ(a1->corr, "alice#1");
  ASSERT_NE(a1->info.get<std::uint64_t>(key::ALLOC_NUM_CPUS), nullptr);
  EXPECT_EQ(*a1->info.get<std::uint64_t>(key::ALLOC_NUM_CPUS), 4u);
  EXPECT_EQ(*a1->info.get<std::string>(key::ALLOC_TIME), "2:00");
  EXPECT_EQ(read_alloc_time(a1->info), 120.0);
  EXPECT_EQ(*a1->info.get<std::string>(key::ALLOC_REQ_ID), "a1");
  ASSERT_NE(a1->info.get<Proc>(key::REQUESTOR), nullptr);
  EXPECT_EQ(*a1->info.get<Proc>(key::REQUESTOR), (Proc{"job.7", 3}));
  const auto* apps = a1->info.get<std::vector<App>>(key::SESSION_APP);
  ASSERT_NE(apps, nullptr);
  ASSERT_EQ(apps->size(), 1u);
  EXPECT_EQ((*apps)[0].cmd, "sleep");
  EXPECT_EQ((*apps)[0].argv, (std::vector<std::string>{"30"}));
  EXPECT_EQ((*apps)[0].maxprocs, 4u);
  EXPECT_EQ(app_behaviour((*apps)[0]).runtime_s, 30.0);
  EXPECT_TRUE((*apps)[0].env.empty());  // `sleep 30` says it all

  // 2: the prefix may be left out; no info, no expectation.
  const ScenarioCall& c2 = sc.calls[1];
  EXPECT_EQ(c2.line, 4u);
  EXPECT_EQ(c2.via, "scheduler");
  EXPECT_FALSE(c2.expect_status);
  ASSERT_TRUE(std::holds_alternative<AllocRequest>(c2.call));
  EXPECT_EQ(std::get<AllocRequest>(c2.call).directive, Directive::Extend);
  EXPECT_EQ(std::get<AllocRequest>(c2.call).corr, "bob#1");  // numbered per requestor
  EXPECT_TRUE(std::get<AllocRequest>(c2.call).info.empty());

  // 3: session control by id; a key string works as well as a name.
  const ScenarioCall& c3 = sc.calls[2];
  const auto* s3 = std::get_if<SessionCtrlRequest>(&c3.call);
  ASSERT_NE(s3, nullptr);
  EXPECT_EQ(s3->session_id, 1u);
  EXPECT_EQ(s3->corr, "alice#2");
  EXPECT_TRUE(s3->directives.flag(key::SESSION_TERMINATE));
  EXPECT_EQ(read_alloc_time(s3->directives), 30.0);
  EXPECT_EQ(c3.expect_status, Status::ErrNotFound);

  // 4: every session, with an array of apps.
  const ScenarioCall& c4 = sc.calls[3];
  EXPECT_EQ(c4.via, "daemon:+n1");
  const auto* s4 = std::get_if<SessionCtrlRequest>(&c4.call);
  ASSERT_NE(s4, nullptr);
  EXPECT_EQ(s4->session_id, kAllSessions);
  const auto* apps4 = s4->directives.get<std::vector<App>>(key::SESSION_APP);
  ASSERT_NE(apps4, nullptr);
  ASSERT_EQ(apps4->size(), 2u);
  // What an app does travels in its environment, as PMIx carries it to the daemons.
  EXPECT_EQ((*apps4)[0].env, (std::vector<std::string>{"PMIXFLOW_RUNTIME=5", "PMIXFLOW_EXIT_CODE=3"}));
  EXPECT_EQ(app_behaviour((*apps4)[0]).runtime_s, 5.0);
  EXPECT_EQ(app_behaviour((*apps4)[0]).exit_code, 3);
  EXPECT_EQ(app_behaviour((*apps4)[1]).runtime_s, 1.0);

  ASSERT_EQ(sc.scheduler_transitions.size(), 2u);
  EXPECT_EQ(sc.scheduler_transitions[0].at, 6.0);
  EXPECT_FALSE(sc.scheduler_transitions[0].up);
  EXPECT_EQ(sc.scheduler_transitions[0].line, 7u);
  EXPECT_EQ(sc.scheduler_transitions[1].at, 9.0);
  EXPECT_TRUE(sc.scheduler_transitions[1].up);
}

TEST(Scenario, HeaderDefaults) {
  const Scenario sc = parse(kHeader + "\n");
  EXPECT_EQ(sc.controller_start, 0.0);
  EXPECT_TRUE(sc.connect_to_scheduler);
  EXPECT_EQ(sc.no_scheduler, NoSchedulerMode::Hold);
  EXPECT_EQ(sc.dvm, "head");
  ASSERT_TRUE(sc.scheduler_start);
  EXPECT_EQ(*sc.scheduler_start, 0.0);
  EXPECT_TRUE(sc.scheduler_attaches);
  EXPECT_EQ(sc.policy, "fcfs");
  EXPECT_TRUE(sc.calls.empty());
}

TEST(Scenario, UnknownPmixKeysAreCarriedAsGiven) {
  const Scenario sc =
      parse(kHeader + "\n" +
            op_line(R"("directive":"PMIX_ALLOC_NEW","info":{"PMIX_ALLOC_NUM_CPUS":1,)"
                    R"("pmix.site.flag":true,"pmix.site.count":3,"pmix.site.ratio":0.5,"pmix.site.name":"x"})"));
  const auto& info = std::get<AllocRequest>(sc.calls.at(0).call).info;
  ASSERT_EQ(info.size(), 5u);
  EXPECT_EQ(*info.get<bool>("pmix.site.flag"), true);
  EXPECT_EQ(*info.get<std::uint64_t>("pmix.site.count"), 3u);
  EXPECT_EQ(*info.get<double>("pmix.site.ratio"), 0.5);
  EXPECT_EQ(*info.get<std::string>("pmix.site.name"), "x");
}

TEST(Scenario, BadJsonNamesTheLine) {
  const auto e = refused(kHeader + "\n" + R"({"at":1,"op":"alloc",)" + "\n");
  expect_located(e, 2, "");
  EXPECT_TRUE(Contains(e.what(), "not valid JSON"));
}

TEST(Scenario, ALineMustBeAnObject) { expect_located(refused(kHeader + "\n[1,2]\n"), 2, ""); }

TEST(Scenario, EmptyInputHasNoHeader) {
  const auto e = refused("\n  \n");
  EXPECT_EQ(e.file(), kFile);
  EXPECT_TRUE(Contains(e.what(), "header"));
}

TEST(Scenario, MissingHeaderIsRefusedOnTheFirstLine) {
  // A header without its format line...
  auto e = refused(R"({"version":1})");
  expect_located(e, 1, "format");
  EXPECT_TRUE(Contains(e.what(), "header"));
  // ...and a file that starts straight with an operation.
  e = refused(R"({"op":"scheduler_attach","at":1})");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.file(), kFile);
  EXPECT_FALSE(e.field().empty());
  EXPECT_TRUE(Contains(e.what(), "format"));
}

TEST(Scenario, WrongVersionIsRefused) {
  auto e = refused(R"({"format":"pmixflow-scenario","version":2})");
  expect_located(e, 1, "version");
  EXPECT_TRUE(Contains(e.what(), "version 1"));
  expect_located(refused(R"({"format":"pmixflow-scenario"})"), 1, "version");
  expect_located(refused(R"({"format":"pmixflow-scenario","version":"1"})"), 1, "version");
}

TEST(Scenario, BadHeaderFieldsAreNamed) {
  expect_located(refused(R"({"format":"pmixflow-scenario","version":1,"controller":{"no_scheduler":"drop"}})"), 1,
                 "controller.no_scheduler");
  expect_located(refused(R"({"format":"pmixflow-scenario","version":1,"scheduler":{"colour":"red"}})"), 1,
                 "scheduler.colour");
}

TEST(Scenario, UnknownOperationIsRefused) {
  const auto e = refused(kHeader + "\n" + R"({"at":1,"op":"allocate","requestor":"a","via":"controller"})");
  expect_located(e, 2, "op");
  EXPECT_TRUE(Contains(e.what(), "allocate"));
}

TEST(Scenario, UnknownDirectiveIsRefused) {
  const auto e = refused(kHeader + "\n" + op_line(R"("directive":"PMIX_ALLOC_GROW")"));
  expect_located(e, 2, "directive");
  EXPECT_TRUE(Contains(e.what(), "PMIX_ALLOC_GROW"));
}

TEST(Scenario, MisspeltPmixNameIsRefused) {
  const auto e = refused(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUZ":4})"));
  expect_located(e, 2, "info.PMIX_ALLOC_NUM_CPUZ");
  EXPECT_TRUE(Contains(e.what(), "unknown PMIx attribute"));
  // Inside a nested object the path is named in full.
  expect_located(refused(kHeader + "\n" +
                         R"({"at":1,"op":"session_control","requestor":"a","via":"scheduler","session":1,)"
                         R"("directives":{"PMIX_SESSION_RESOURCES":{"PMIX_NODE_LIST":"n01"}}})"),
                 2, "directives.PMIX_SESSION_RESOURCES.PMIX_NODE_LIST");
}

TEST(Scenario, WrongValueTypeIsRefused) {
  auto e = refused(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUS":"four"})"));
  expect_located(e, 2, "info.PMIX_ALLOC_NUM_CPUS");
  EXPECT_TRUE(Contains(e.what(), "uint64"));
  expect_located(refused(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"PMIX_ALLOC_NUM_CPUS":-4})")), 2,
                 "info.PMIX_ALLOC_NUM_CPUS");
  expect_located(refused(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"PMIX_REQUESTOR":"norank"})")), 2,
                 "info.PMIX_REQUESTOR");
  expect_located(refused(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"pmix.site.list":[1]})")), 2,
                 "info.pmix.site.list");
  expect_located(refused(kHeader + "\n" + R"({"at":"soon","op":"scheduler_attach"})"), 2, "at");
  expect_located(refused(kHeader + "\n" + op_line(R"("directive":"NEW","app":{"cmd":"sleep","argv":["x"]})")), 2,
                 "app.argv");
}

TEST(Scenario, BadViaIsRefused) {
  for (const char* via : {"daemon", "daemon:", "rm", "Controller"}) {
    const auto e =
        refused(kHeader + "\n" + R"({"at":1,"op":"alloc","requestor":"a","via":")" + via + R"(","directive":"NEW"})");
    expect_located(e, 2, "via");
  }
}

TEST(Scenario, BadAllocTimeIsRefused) {
  for (const char* t : {R"("1:xx")", R"("")", R"("-5")", R"("1:2:3:4:5:6")", "true", "-3"}) {
    const auto e =
        refused(kHeader + "\n" + op_line(std::string(R"("directive":"NEW","info":{"PMIX_ALLOC_TIME":)") + t + "}"));
    expect_located(e, 2, "info.PMIX_ALLOC_TIME");
  }
  // Whole seconds (OpenPMIx 4.2.2) are accepted.
  const Scenario sc = parse(kHeader + "\n" + op_line(R"("directive":"NEW","info":{"PMIX_ALLOC_TIME":90})"));
  EXPECT_EQ(read_alloc_time(std::get<AllocRequest>(sc.calls.at(0).call).info), 90.0);
}

TEST(Scenario, AnAppsEnvironmentIsCarriedAndItsDescriptionMerged) {
  // A user's own variables travel as given; the fields that say what the app does are
  // written into the same environment, winning over a description given there.
  const Scenario sc = parse(kHeader + "\n" +
                            op_line(R"("directive":"NEW","app":{"cmd":"a.out","env":["OMP_NUM_THREADS=4",)"
                                    R"("PMIXFLOW_RUNTIME=9","PMIXFLOW_EXIT_CODE=2"],"runtime":3})"));
  const auto& apps = *std::get<AllocRequest>(sc.calls.at(0).call).info.get<std::vector<App>>(key::SESSION_APP);
  EXPECT_EQ(apps.at(0).env,
            (std::vector<std::string>{"OMP_NUM_THREADS=4", "PMIXFLOW_RUNTIME=3", "PMIXFLOW_EXIT_CODE=2"}));
  // The run time may come from the environment alone.
  const Scenario by_env =
      parse(kHeader + "\n" + op_line(R"("directive":"NEW","app":{"cmd":"a.out","env":["PMIXFLOW_RUNTIME=7"]})"));
  const auto& app = std::get<AllocRequest>(by_env.calls.at(0).call).info.get<std::vector<App>>(key::SESSION_APP)->at(0);
  EXPECT_EQ(app_behaviour(app).runtime_s, 7.0);
}

TEST(Scenario, BadAppEnvironmentIsRefused) {
  for (const char* env : {R"(["NOVALUE"])", R"(["=x"])", R"("A=1")", "[1]"}) {
    const auto e =
        refused(kHeader + "\n" +
                op_line(std::string(R"("directive":"NEW","app":{"cmd":"sleep","argv":["1"],"env":)") + env + "}"));
    expect_located(e, 2, "app.env");
  }
  // Without a run time an app that is not `sleep N` says nothing about how long it runs.
  expect_located(refused(kHeader + "\n" + op_line(R"("directive":"NEW","app":{"cmd":"a.out"})")), 2, "app.runtime");
}

TEST(Scenario, AnAppMayDieByASignal) {
  const Scenario sc =
      parse(kHeader + "\n" + op_line(R"("directive":"NEW","app":{"cmd":"a.out","runtime":3,"exit_signal":11})"));
  const auto& app = std::get<AllocRequest>(sc.calls.at(0).call).info.get<std::vector<App>>(key::SESSION_APP)->at(0);
  EXPECT_EQ(app.env, (std::vector<std::string>{"PMIXFLOW_RUNTIME=3", "PMIXFLOW_EXIT_SIGNAL=11"}));
  EXPECT_EQ(app_behaviour(app).exit_signal, 11);
  EXPECT_EQ(app_behaviour(app).exit_code, 0);
  // Not a number, out of range, or a signal a process does not die of (SIGCHLD, SIGCONT, SIGSTOP).
  for (const char* bad : {"\"11\"", "0", "65", "-9", "1.5", "17", "18", "19"}) {
    SCOPED_TRACE(bad);
    const auto e = refused(
        kHeader + "\n" +
        op_line(std::string(R"("directive":"NEW","app":{"cmd":"a.out","runtime":3,"exit_signal":)") + bad + "}"));
    expect_located(e, 2, "app.exit_signal");
  }
}

TEST(Scenario, TheErrorIsOnTheRightLine) {
  const auto e = refused(kHeader + "\n" + op_line(R"("directive":"NEW")") + "\n\n" +
                         op_line(R"("directive":"NEW","expect":{"status":"PMIX_NOPE"})"));
  expect_located(e, 4, "expect.status");
}

TEST(Scenario, AssertionsAreReadWithTheirMoment) {
  const Scenario sc =
      parse(kHeader + "\n" + op_line(R"("directive":"NEW")") + "\n" +
            R"({"op":"assert","after":"alice#1","session_of":"alice#1","nodes":"n02,n01"})" + "\n" +
            R"({"op":"assert","at":5,"count":{"ev":"dvm.ready","code":"PMIX_DVM_IS_READY"},"equals":1})");
  ASSERT_EQ(sc.assertions.size(), 2u);
  const Assertion& a = sc.assertions[0];
  EXPECT_EQ(a.line, 3u);
  EXPECT_EQ(a.after, "alice#1");
  EXPECT_EQ(a.subject, AssertSubject::Session);
  EXPECT_TRUE(a.target_is_call);
  EXPECT_EQ(*a.nodes, (std::vector<std::string>{"n01", "n02"}));
  const Assertion& c = sc.assertions[1];
  EXPECT_EQ(*c.at, 5.0);
  EXPECT_EQ(c.count.kind, log::EventKind::DvmReady);
  EXPECT_EQ(c.equals, 1u);
  EXPECT_EQ(c.what(), "count dvm.ready");
}

TEST(Scenario, BadAssertionsAreNamedByLineAndField) {
  const std::string call = kHeader + "\n" + op_line(R"("directive":"NEW")") + "\n";
  const auto bad = [&](const std::string& line, const std::string& field) {
    expect_located(refused(call + line), 3, field);
  };
  bad(R"({"op":"assert","node":"n01"})", "");                                   // asserts nothing
  bad(R"({"op":"assert","node":"n01","session":1,"daemon":"up"})", "session");  // two subjects
  bad(R"({"op":"assert","node":"n01","daemon":"running"})", "daemon");
  bad(R"({"op":"assert","node":"n01","exists":true})", "exists");  // not a node's
  bad(R"({"op":"assert","session":"x","exists":true})", "session");
  bad(R"({"op":"assert","session_of":"alice","exists":true})", "session_of");
  bad(R"({"op":"assert","session_of":"bob#1","exists":true})", "session_of");  // no such call
  bad(R"({"op":"assert","at":1,"after":"alice#1","node":"n01","use":"free"})", "after");
  bad(R"({"op":"assert","count":{"ev":"no.such"},"equals":1})", "count.ev");
  bad(R"({"op":"assert","count":{"ev":"node","nspace":"x"},"equals":1})", "count.nspace");
  bad(R"({"op":"assert","count":{"ev":"dvm.ready","code":"PMIX_NOPE"},"equals":1})", "count.code");
  bad(R"({"op":"assert","count":{"ev":"node"},"equals":-1})", "equals");
  // A list of records is matched by an object of single values, one record carrying them all.
  bad(R"({"op":"assert","count":{"ev":"session.completed","jobs":{}},"equals":1})", "count.jobs");
  bad(R"({"op":"assert","count":{"ev":"session.completed","jobs":{"status":["PMIX_SUCCESS"]}},"equals":1})",
      "count.jobs");
  bad(R"({"op":"assert","count":{"ev":"session.completed","jobs":"PMIX_SUCCESS"},"equals":1})", "count.jobs");
  bad(R"({"op":"assert","node":"n01","use":"free","colour":"red"})", "colour");
}

}  // namespace
}  // namespace pmixflow
