// The event log as a contract: the catalogue is consistent and documented, what the writer
// renders the reader reads back to the same values, and a log that is not whole or not
// well formed is refused where it breaks, naming the file, the line and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include "fake_env.hpp"
#include "pmixflow/log/events.hpp"
#include "pmixflow/log/level.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/log/reference.hpp"
#include "pmixflow/log/render.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/results/invariants.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::Contains;
using test::expect_input_error;

class LogDir : public test::TempDir {
 public:
  LogDir() : test::TempDir("pmixflow_log") {}
  std::string file(const std::string& name) const { return (path() / name).string(); }
};

log::LogHeader header() {
  log::LogHeader h;
  h.env = "sim";
  h.seed = 7;
  h.inputs = {{"policy", "fcfs"}};
  return h;
}

// Writes a whole log of the given events through the file sink, as a run does.
template <class... Events>
std::string write_log(const LogDir& dir, const Events&... events) {
  const std::string path = dir.file("events.jsonl");
  log::LineSink sink(path);
  log::EventLog out(header());
  out.attach(sink);
  out.begin();
  double t = 0;
  auto one = [&](const auto& e) {
    log::EventBuilder b(std::decay_t<decltype(e)>::event_kind);
    fill(e, b);
    out.write(b.view(t += 0.5, "controller"));
  };
  (one(events), ...);
  out.finish(t, "quiescent", R"({"wall_s":0.25})");
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LogCatalogue, EveryFieldIsUsedAndEveryKindIsDescribed) {
  std::set<log::Field> used;
  for (const auto& k : log::all_kinds()) {
    EXPECT_FALSE(k.meaning.empty()) << k.name;
    EXPECT_FALSE(k.writer.empty()) << k.name;
    EXPECT_EQ(log::find_kind(k.name), k.kind) << k.name;
    for (const auto& f : k.fields) used.insert(f.field);
  }
  for (std::size_t i = 0; i < log::all_fields().size(); ++i) {
    const auto& f = log::all_fields()[i];
    EXPECT_TRUE(used.count(static_cast<log::Field>(i))) << f.key << " is in no kind";
    EXPECT_FALSE(f.meaning.empty()) << f.key;
    EXPECT_EQ(log::find_field(f.key), static_cast<log::Field>(i));
  }
  EXPECT_FALSE(log::find_kind("alloc.granted"));
}

TEST(LogCatalogue, DocsEventsMdIsTheGeneratedReference) {
  const std::string page = slurp(std::string(PMIXFLOW_SOURCE_DIR) + "/docs/events.md");
  const std::string begin = "<!-- catalogue:begin -->\n", end = "<!-- catalogue:end -->";
  const auto from = page.find(begin), to = page.find(end);
  ASSERT_NE(from, std::string::npos) << "docs/events.md has no catalogue:begin marker";
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(page.substr(from + begin.size(), to - from - begin.size()), log::reference_markdown())
      << "docs/events.md is out of date: regenerate its reference with `pmixflow events --markdown`";
  for (const auto& k : log::all_kinds()) EXPECT_TRUE(Contains(page, "### `" + std::string(k.name) + "`")) << k.name;
}

TEST(LogRender, EventsRenderInCatalogueOrderWithoutTheAbsentFields) {
  log::EventBuilder b(log::EventKind::AllocQueued);
  fill(ev::AllocQueued{.corr = "a#1", .requestor = "a.0", .cpus = 4, .num_nodes = 0, .time_limit = 120}, b);
  std::string line;
  log::render_line(line, b.view(1.5, "scheduler"));
  EXPECT_EQ(line,
            R"({"t":1.5,"ev":"alloc.queued","who":"scheduler","corr":"a#1","requestor":"a.0","cpus":4,"num_nodes":0,)"
            R"("time_limit":120})"
            "\n");
}

TEST(LogRender, AByteThatIsNotUtf8IsEscapedNotCopied) {
  // The writer's last line of defence behind the inputs' own checks: every line strict JSON.
  log::EventBuilder b(ev::PartyUp::event_kind);
  fill(ev::PartyUp{}, b);
  std::string line;
  log::render_line(line, b.view(1,
                                "n\xff"
                                "01"));
  EXPECT_TRUE(Contains(line, R"("who":"n\u00ff01")")) << line;
  EXPECT_TRUE(nlohmann::json::accept(line));
}

TEST(LogReader, ReadsBackWhatWasWrittenWithEveryType) {
  LogDir dir;
  InfoList info;
  info.add(key::ALLOC_ID, std::string("alloc-1")).add(key::SESSION_ID, std::uint32_t{3});
  const std::string path = write_log(dir,
                                     ev::AllocQueued{.corr = "a \"quoted\"\n#1",
                                                     .requestor = "a.0",
                                                     .cpus = 4,
                                                     .num_nodes = 1,
                                                     .time_limit = 0.1,
                                                     .priority = -3,
                                                     .preemptible = true},
                                     ev::DvmReady{.corr = "c", .code = Status::ErrDvmMod, .info = info},
                                     ev::JobSignal{.nspace = "job-1.1", .session = 1, .signal = -9});
  log::LogReader r(path, {.strict = true});
  EXPECT_EQ(r.header().env, "sim");
  EXPECT_EQ(r.header().seed, 7u);
  EXPECT_EQ(r.header().inputs["policy"], "fcfs");
  const log::EventView* e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, log::EventKind::AllocQueued);
  EXPECT_EQ(e->t, 0.5);
  EXPECT_EQ(e->who, "controller");
  EXPECT_EQ(e->str(log::Field::corr), "a \"quoted\"\n#1");
  EXPECT_EQ(e->uint(log::Field::cpus), 4u);
  EXPECT_EQ(e->num(log::Field::time_limit), 0.1);
  EXPECT_EQ(e->sint(log::Field::priority), -3);
  EXPECT_EQ(e->flag(log::Field::preemptible), true);
  EXPECT_FALSE(e->has(log::Field::alloc));  // not a field of alloc.queued
  e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status(log::Field::code), Status::ErrDvmMod);
  EXPECT_EQ(e->json(log::Field::info), R"([["pmix.alloc.id","alloc-1"],["pmix.session.id",3]])");
  e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->sint(log::Field::signal), -9);
  e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, log::EventKind::LogEnd);
  EXPECT_EQ(e->uint(log::Field::events), 3u);
  EXPECT_EQ(r.next(), nullptr);
  EXPECT_TRUE(r.complete());
  EXPECT_FALSE(r.problem());
}

TEST(LogReader, DeliversOnlyTheKindsAskedForAndTheClosingLine) {
  LogDir dir;
  const std::string path =
      write_log(dir, ev::PartyUp{}, ev::NodeFail{.node = "n01"}, ev::PartyDown{}, ev::NodeFail{.node = "n02"});
  log::LogReader r(path, {.kinds = log::kind_set({log::EventKind::NodeFail})});
  std::vector<std::string> seen;
  while (const auto* e = r.next()) seen.push_back(std::string(log::spec(e->kind).name));
  EXPECT_EQ(seen, (std::vector<std::string>{"node.fail", "node.fail", "log.end"}));
  EXPECT_TRUE(r.complete());
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::string kHeaderLine = R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{}})";

TEST(LogReader, ACutLogIsNamedWithItsLastGoodLine) {
  LogDir dir;
  const std::string path = dir.file("cut.jsonl");
  write_text(path, kHeaderLine + "\n" + R"({"t":0,"ev":"party.up","who":"controller"})" + "\n");
  log::LogReader r(path);
  ASSERT_NE(r.next(), nullptr);
  EXPECT_EQ(r.next(), nullptr);
  EXPECT_FALSE(r.complete());
  ASSERT_TRUE(r.problem());
  EXPECT_TRUE(Contains(r.problem()->what(), "no closing line"));
  EXPECT_EQ(r.last_good_line(), 2u);
  // Cut in the middle of a line: that line is not delivered.
  write_text(path, kHeaderLine + "\n" + R"({"t":0,"ev":"party.up","who":"controller"})" + "\n" + R"({"t":1,"ev":"par)");
  log::LogReader half(path);
  ASSERT_NE(half.next(), nullptr);
  EXPECT_EQ(half.next(), nullptr);
  ASSERT_TRUE(half.problem());
  EXPECT_EQ(half.problem()->line(), 3u);
  EXPECT_TRUE(Contains(half.problem()->what(), "cut short"));
  EXPECT_EQ(half.last_good_line(), 2u);
}

TEST(LogReader, FollowingALogBeingWrittenWaitsForWholeLinesAndReadsOn) {
  LogDir dir;
  const std::string path = dir.file("live.jsonl");
  const std::string up = R"({"t":0,"ev":"party.up","who":"controller"})";
  write_text(path, kHeaderLine + "\n" + up + "\n" + R"({"t":1,"ev":"par)");
  log::LogReader r(path, {.follow = true});
  ASSERT_NE(r.next(), nullptr);
  EXPECT_EQ(r.offset(), kHeaderLine.size() + 1);
  // The unfinished line is left for later: no problem, no event.
  EXPECT_EQ(r.next(), nullptr);
  EXPECT_TRUE(r.waiting());
  EXPECT_FALSE(r.problem());
  {
    std::ofstream more(path, std::ios::app);
    more << R"(ty.up","who":"scheduler"})"
         << "\n";
  }
  const auto* e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->who, "scheduler");
  EXPECT_EQ(r.offset(), kHeaderLine.size() + 1 + up.size() + 1);
  EXPECT_EQ(r.line(), 3u);
  EXPECT_EQ(r.next(), nullptr);
  EXPECT_TRUE(r.waiting());
  {
    std::ofstream more(path, std::ios::app);
    more << R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":2,"stats":{}})"
         << "\n";
  }
  ASSERT_NE(r.next(), nullptr);
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.next(), nullptr);
  EXPECT_FALSE(r.problem());
}

TEST(LogReader, StandardInputCannotBeFollowed) {
  const auto e = expect_input_error([] { log::LogReader r("-", {.follow = true}); });
  EXPECT_TRUE(Contains(e.what(), "cannot be followed"));
}

TEST(LogReader, AMalformedLineStopsTheReadingWhereItIs) {
  LogDir dir;
  const std::string path = dir.file("bad.jsonl");
  const std::string good = R"({"t":0,"ev":"party.up","who":"controller"})";
  const struct {
    std::string line;
    std::string field;
    std::string says;
  } cases[] = {
      {R"({"t":0,"ev":"node.fail","who":"controller"})", "node", "missing"},
      {R"({"t":0,"ev":"node.fail","who":"controller","node":3})", "node", "expects a string"},
      {R"({"t":"0","ev":"party.up","who":"controller"})", "t", "time"},
      {R"({"t":0,"ev":"party.up","who":"controller"} x)", "", "after the end"},
      {R"({"t":0,"ev":"party.up","who":"controller",})", "", "quoted key"},
      {R"({"t":0,"ev":"node.fail","who":"c","node":"n01","code":"PMIX_NO_SUCH_CODE"})", "", ""},
      // Raw bytes another tool wrote, and a time past a double's range.
      {"{\"t\":0,\"ev\":\"party.up\",\"who\":\"contr\xffoller\"}", "who", "not valid UTF-8 (byte 0xFF at column 36)"},
      {R"({"t":1e999,"ev":"party.up","who":"controller"})", "t", "time"},
  };
  for (const auto& c : cases) {
    write_text(path, kHeaderLine + "\n" + good + "\n" + c.line + "\n" + good + "\n");
    log::LogReader r(path, {.strict = true});
    ASSERT_NE(r.next(), nullptr) << c.line;
    EXPECT_EQ(r.next(), nullptr) << c.line;
    ASSERT_TRUE(r.problem()) << c.line;
    EXPECT_EQ(r.problem()->file(), path);
    EXPECT_EQ(r.problem()->line(), 3u) << c.line;
    if (!c.field.empty()) {
      EXPECT_EQ(r.problem()->field(), c.field) << c.line;
    }
    EXPECT_TRUE(Contains(r.problem()->what(), c.says)) << r.problem()->what();
  }
}

TEST(LogReader, UnknownKindsAndFieldsArePassedOverUnlessStrict) {
  LogDir dir;
  const std::string path = dir.file("newer.jsonl");
  write_text(path, kHeaderLine + "\n" + R"({"t":0,"ev":"party.up","who":"c","colour":"red"})" + "\n" +
                       R"({"t":0,"ev":"party.dance","who":"c"})" + "\n" +
                       R"({"t":0,"ev":"log.end","who":"run","end":"quiescent","events":2,"stats":{}})" + "\n");
  log::LogReader lenient(path);
  ASSERT_NE(lenient.next(), nullptr);
  ASSERT_NE(lenient.next(), nullptr);  // the closing line: party.dance was passed over
  EXPECT_TRUE(lenient.complete());
  EXPECT_EQ(lenient.unknown_kinds(), 1u);
  log::LogReader strict(path, {.strict = true});
  EXPECT_EQ(strict.next(), nullptr);
  ASSERT_TRUE(strict.problem());
  EXPECT_EQ(strict.problem()->field(), "colour");
}

TEST(LogReader, TheHeaderIsCheckedFirst) {
  LogDir dir;
  const std::string path = dir.file("h.jsonl");
  write_text(path, R"({"format":"pmixflow-events","version":1,"env":"sim","seed":0,"inputs":{}})"
                   "\n");
  const InputError old = expect_input_error([&] { log::LogReader r(path); });
  EXPECT_EQ(old.line(), 1u);
  EXPECT_EQ(old.field(), "version");
  EXPECT_TRUE(Contains(old.what(), "version 1"));
  write_text(path, "job_id,workload_name\n");
  EXPECT_TRUE(Contains(expect_input_error([&] { log::LogReader r(path); }).what(), "not a pmixflow event log"));
  // Found by fuzz/fuzz_diff_events: a format that is not a string was nlohmann's type error.
  for (const char* format : {"0", "null", "[\"pmixflow-events\"]", "{}"}) {
    write_text(path,
               std::string(R"({"format":)") + format + R"(,"version":2,"env":"sim","seed":0,"inputs":{}})" + "\n");
    const InputError e = expect_input_error([&] { log::LogReader r(path); });
    EXPECT_EQ(e.field(), "format") << format;
  }
  write_text(path, "");
  EXPECT_TRUE(Contains(expect_input_error([&] { log::LogReader r(path); }).what(), "empty"));
  EXPECT_TRUE(
      Contains(expect_input_error([&] { log::LogReader r(dir.file("none")); }).what(), "cannot be read: No such file"));
}

TEST(LogReader, LinesAfterTheClosingLineAreAnError) {
  LogDir dir;
  const std::string path = write_log(dir, ev::PartyUp{});
  std::ofstream(path, std::ios::app) << R"({"t":9,"ev":"party.up","who":"c"})"
                                     << "\n";
  log::LogReader r(path);
  while (r.next()) {
  }
  EXPECT_FALSE(r.complete());
  ASSERT_TRUE(r.problem());
  EXPECT_TRUE(Contains(r.problem()->what(), "after the closing line"));
}

TEST(LogSink, TheFileHoldsOnlyWholeLinesAndTheHeaderAtOnce) {
  LogDir dir;
  const std::string path = dir.file("live.jsonl");
  log::LineSink sink(path, log::all_kinds_set(), std::chrono::milliseconds(0));
  log::EventLog out(header());
  out.attach(sink);
  out.begin();
  EXPECT_EQ(slurp(path).back(), '\n');  // a follower learns at once what it reads
  for (int i = 0; i < 600; ++i) {
    log::EventBuilder b(log::EventKind::PartyUp);
    fill(ev::PartyUp{}, b);
    out.write(b.view(i, "controller"));
  }
  // Flushed as it goes (every 256 events at the latest here), and only at line ends.
  const std::string so_far = slurp(path);
  EXPECT_GT(so_far.size(), kHeaderLine.size() + 1);
  EXPECT_EQ(so_far.back(), '\n');
  EXPECT_EQ(out.events(), 600u);
}

TEST(LogSink, AnEventLogCountsOnlyForSinksThatKeepEverything) {
  struct Picky final : log::EventSink {
    log::KindSet kinds() const override { return log::kind_set({log::EventKind::Call}); }
    void begin(const log::LogHeader&) override {}
    void event(const log::EventView& e) override { seen.push_back(e.kind); }
    void end(const log::EventView& e) override { seen.push_back(e.kind); }
    std::vector<log::EventKind> seen;
  } picky;
  log::EventLog out(header());
  out.attach(picky);
  EXPECT_TRUE(out.wants(log::EventKind::Call));
  EXPECT_FALSE(out.wants(log::EventKind::Send));
  log::EventBuilder b(log::EventKind::Call);
  fill(ev::Call{.corr = "a#1", .what = "PMIX_ALLOC_NEW", .via = "scheduler"}, b);
  out.write(b.view(0, "requestor:a"));
  out.finish(1, "quiescent", "{}");
  EXPECT_EQ(out.events(), 0u);  // no log is being written: nothing to count
  EXPECT_EQ(picky.seen, (std::vector<log::EventKind>{log::EventKind::Call, log::EventKind::LogEnd}));
}

TEST(LogSink, ACompressedLogCutShortReadsAsCutAndCannotBeFollowed) {
  LogDir dir;
  const std::string path = dir.file("cut.jsonl.gz");
  {
    log::LineSink sink(path, log::kinds_at(log::Level::State), std::chrono::milliseconds(0));
    log::EventLog out(header());
    out.attach(sink);
    out.begin();
    for (const auto kind : {log::EventKind::PartyUp, log::EventKind::Send}) {
      log::EventBuilder b(kind);
      if (kind == log::EventKind::PartyUp) fill(ev::PartyUp{}, b);
      out.write(b.view(1, "controller"));
    }
    EXPECT_EQ(out.events(), 1u);  // the send is not kept at level state, nor counted
  }                               // the run stops here: no closing line
  log::LogReader r(path);
  ASSERT_NE(r.next(), nullptr);
  EXPECT_EQ(r.next(), nullptr);
  ASSERT_TRUE(r.problem());
  EXPECT_TRUE(Contains(r.problem()->what(), "no closing line"));
  try {
    log::LogReader follower(path, log::ReadOptions{.follow = true});
    ADD_FAILURE() << "a compressed log was followed";
  } catch (const InputError& e) {
    EXPECT_TRUE(Contains(e.what(), "compressed log cannot be followed"));
  }
}

// ---------------------------------------------------------------- the invariants, read from a log

TEST(Invariants, AWellBehavedLogHoldsAndEachBreachIsNamed) {
  LogDir dir;
  const ev::Call call1{.corr = "a#1", .what = "PMIX_ALLOC_NEW", .via = "controller"};
  const ev::Call call2{.corr = "a#2", .what = "PMIX_ALLOC_NEW", .via = "controller"};
  const ev::Answer ok1{.corr = "a#1", .what = "PMIX_ALLOC_NEW", .status = Status::Success, .info = {}, .latency = 0.5};
  const ev::SessionReclaimed reclaimed{
      .session = 5, .alloc = "alloc-5", .corr = "a#1", .nodes_to = "dvm-pool", .num_jobs = 0};
  const ev::SessionComplete complete{.session = 5, .alloc = "alloc-5", .corr = "a#1"};
  const auto good = check_invariants(write_log(dir, call1, ok1, reclaimed, complete));
  EXPECT_TRUE(good.ok()) << good.breaches.front();
  EXPECT_EQ(good.calls, 1u);

  const auto bad = check_invariants(write_log(dir, call1, ok1, ok1, call2, complete, reclaimed, complete));
  const std::set<std::string> said(bad.breaches.begin(), bad.breaches.end());
  EXPECT_EQ(said, (std::set<std::string>{"call a#1 was answered 2 times", "call a#2 was never answered",
                                         "session 5 was reported complete 2 times",
                                         "session 5 was reported complete before it was reclaimed"}));
}

}  // namespace
}  // namespace pmixflow

namespace pmixflow {
namespace {

// One event at a time of its own, written by controller.
using TimedEvent = std::function<void(log::EventLog&)>;

template <typename Event>
TimedEvent at(double t, Event e) {
  return [t, e](log::EventLog& out) {
    log::EventBuilder b(Event::event_kind);
    fill(e, b);
    out.write(b.view(t, "controller"));
  };
}

// A log of these events, closed at `end` quiescent.
std::string write_log_at(const LogDir& dir, const std::vector<TimedEvent>& events, double end) {
  const std::string path = dir.file("timed.jsonl");
  log::LineSink sink(path);
  log::EventLog out(header());
  out.attach(sink);
  out.begin();
  for (const auto& e : events) e(out);
  out.finish(end, "quiescent", R"({"wall_s":0.25})");
  return path;
}

TEST(Invariants, ALineEarlierThanTheOneAboveItIsABreach) {
  LogDir dir;
  const auto report = check_invariants(write_log_at(
      dir, {at(1.0, ev::PartyUp{}), at(2.0, ev::PartyUp{}), at(1.5, ev::PartyUp{}), at(3.0, ev::PartyUp{})}, 3.0));
  ASSERT_EQ(report.breaches.size(), 1u);
  EXPECT_TRUE(Contains(report.breaches.front(), "line 4 (t=1.500000) is earlier than the line above it (t=2.000000)"))
      << report.breaches.front();
}

TEST(Invariants, ASessionWithATimeLimitNeverCompleteAtAQuiescentEndIsABreachUnlessTheControllerWent) {
  LogDir dir;
  const ev::SessionInstantiate made{.corr = "scheduler#1", .session = 7, .alloc = "s-7", .time_limit = 20};
  std::vector<TimedEvent> events{at(1.0, made)};
  const auto held = check_invariants(write_log_at(dir, events, 30.0));
  ASSERT_EQ(held.breaches.size(), 1u);
  EXPECT_EQ(held.breaches.front(), "session 7 was never reported complete, though the run ended quiescent");

  events.push_back(at(2.0, ev::PartyDown{}));  // the controller, and its DVM, went
  EXPECT_TRUE(check_invariants(write_log_at(dir, events, 30.0)).ok());
}

}  // namespace
}  // namespace pmixflow
