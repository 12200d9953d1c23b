// Version 3 of the log: a recv that carries what its send did is written short (`from` and
// `id`), and every reader gets it back whole, as version 2 wrote it; a recv that differs from
// its send, or whose send is not the oldest of its pair, is written whole; a version 2 log
// still reads.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "pmixflow/log/events.hpp"
#include "pmixflow/log/in_flight.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/log/sink.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::Contains;

// One event of a test log: who writes it, when.
struct Line {
  double t;
  std::string who;
  std::function<void(log::EventBuilder&)> fill;
  log::EventKind kind;
  std::uint64_t message = 0;  // the environment's number for a send's or recv's message
};

template <class E>
Line line(double t, std::string who, E e) {
  return Line{t, std::move(who), [e](log::EventBuilder& b) { ev::fill(e, b); }, E::event_kind};
}

// `numbered`: the lines' message numbers are handed over, as the simulator does.
std::string write_log(const test::TempDir& dir, const std::vector<Line>& lines, bool numbered = false,
                      const std::string& name = "events.jsonl") {
  const std::string path = (dir.path() / name).string();
  log::LineSink sink(path);
  log::EventLog out(log::LogHeader{});
  out.attach(sink);
  out.begin();
  for (const auto& l : lines) {
    log::EventBuilder b(l.kind);
    l.fill(b);
    out.write(b.view(l.t, l.who, numbered ? l.message : 0));
  }
  out.finish(9, "quiescent", R"({"wall_s":0})");
  return path;
}

std::vector<std::string> file_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Every event as the reader delivers it, by its text.
std::vector<std::string> read_texts(const std::string& path, log::ReadOptions options = {}) {
  log::LogReader r(path, options);
  std::vector<std::string> out;
  while (r.next()) out.push_back(std::string(r.text()));
  EXPECT_TRUE(r.complete()) << (r.problem() ? r.problem()->what() : "");
  return out;
}

InfoList request_info() {
  InfoList info;
  info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4}).add(key::ALLOC_ID, std::string("job1"));
  return info;
}

TEST(ShortRecv, ARecvAsItsSendLeftIsWrittenShortAndReadWhole) {
  test::TempDir dir;
  const InfoList info = request_info();
  const std::string path = write_log(dir, {line(1, "requestor:a",
                                                ev::Send{.to = "scheduler",
                                                         .msg = "alloc_request",
                                                         .corr = "a#1",
                                                         .id = 7,
                                                         .directive = "PMIX_ALLOC_NEW",
                                                         .info = info,
                                                         .bytes = 200}),
                                           line(1.25, "scheduler",
                                                ev::Recv{.from = "requestor:a",
                                                         .msg = "alloc_request",
                                                         .corr = "a#1",
                                                         .id = 7,
                                                         .directive = "PMIX_ALLOC_NEW",
                                                         .info = info,
                                                         .bytes = 200})});
  const auto file = file_lines(path);
  ASSERT_EQ(file.size(), 4u);
  EXPECT_TRUE(Contains(file[0], R"("version":3)"));
  EXPECT_EQ(file[2], R"({"t":1.25,"ev":"recv","who":"scheduler","from":"requestor:a","id":7})");
  const auto read = read_texts(path);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[1], R"({"t":1.25,"ev":"recv","who":"scheduler","from":"requestor:a","msg":"alloc_request",)"
                     R"("corr":"a#1","id":7,"directive":"PMIX_ALLOC_NEW","info":[["pmix.alloc.ncpus",4],)"
                     R"(["pmix.alloc.id","job1"]],"bytes":200})");
  log::LogReader r(path, {.strict = true});
  r.next();
  const auto* recv = r.next();
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(recv->str(log::Field::msg), "alloc_request");
  EXPECT_EQ(recv->uint(log::Field::bytes), 200u);
  EXPECT_EQ(r.send_line(), 2u);
  EXPECT_EQ(log::whole_recv(file[2], file[1]), read[1]);
}

TEST(ShortRecv, ARecvThatDiffersFromItsSendIsWrittenWhole) {
  // A requestor's call reaches its server with the requestor's credentials stamped in.
  test::TempDir dir;
  InfoList sent = request_info();
  InfoList stamped = sent;
  stamped.add(key::USERID, std::uint32_t{1000});
  const std::string path = write_log(
      dir,
      {line(1, "requestor:a", ev::Send{.to = "scheduler", .msg = "alloc_request", .id = 1, .info = sent, .bytes = 9}),
       line(2, "scheduler",
            ev::Recv{.from = "requestor:a", .msg = "alloc_request", .id = 1, .info = stamped, .bytes = 9})});
  const auto file = file_lines(path);
  EXPECT_TRUE(Contains(file[2], R"("msg":"alloc_request")")) << file[2];
  EXPECT_TRUE(Contains(file[2], R"("pmix.euid",1000)")) << file[2];
  EXPECT_EQ(read_texts(path)[1], file[2]);
}

TEST(ShortRecv, MessagesTakenOutOfOrderOrNeverReadStillReadBackAsSent) {
  // Id-less messages on one pair: the first never received, the second received before the
  // third. Whatever is written short stands for the right send.
  test::TempDir dir;
  auto launch = [](const char* nspace) {
    return ev::Send{.to = "daemon:n1", .msg = "launch_procs", .nspace = nspace, .bytes = 5};
  };
  auto got = [](const char* nspace) {
    return ev::Recv{.from = "controller", .msg = "launch_procs", .nspace = nspace, .bytes = 5};
  };
  const std::string path =
      write_log(dir, {line(1, "controller", launch("job-1.1")), line(1, "controller", launch("job-2.1")),
                      line(1, "controller", launch("job-3.1")), line(2, "daemon:n1", got("job-2.1")),
                      line(3, "daemon:n1", got("job-3.1"))});
  const auto file = file_lines(path);
  EXPECT_TRUE(Contains(file[4], R"("nspace":"job-2.1")")) << "not the oldest: whole";
  EXPECT_EQ(file[5], R"({"t":3,"ev":"recv","who":"daemon:n1","from":"controller"})");
  const auto read = read_texts(path);
  EXPECT_TRUE(Contains(read[3], R"("nspace":"job-2.1")"));
  EXPECT_TRUE(Contains(read[4], R"("nspace":"job-3.1")"));
  // Asking for the recvs alone: the sends they stand on are still read.
  EXPECT_EQ(read_texts(path, {.kinds = log::kind_set({log::EventKind::Recv})}),
            (std::vector<std::string>{read[3], read[4], read[5]}));
}

TEST(ShortRecv, AShortRecvWithoutItsSendIsRefusedWhereItIs) {
  test::TempDir dir;
  const std::string path =
      dir.write("bad.jsonl", R"({"format":"pmixflow-events","version":3,"env":"sim","seed":0,"inputs":{}})"
                             "\n"
                             R"({"t":1,"ev":"recv","who":"scheduler","from":"controller","id":4})"
                             "\n");
  log::LogReader r(path);
  EXPECT_EQ(r.next(), nullptr);
  ASSERT_TRUE(r.problem());
  EXPECT_EQ(r.problem()->line(), 2u);
  EXPECT_EQ(r.problem()->field(), "msg");
  EXPECT_TRUE(Contains(r.problem()->what(), "no send")) << r.problem()->what();
}

TEST(ShortRecv, AVersion2LogStillReadsItsRecvsAsWritten) {
  test::TempDir dir;
  const std::string recv =
      R"({"t":1.5,"ev":"recv","who":"scheduler","from":"requestor:a","msg":"alloc_request","id":1,"bytes":100})";
  const std::string path =
      dir.write("v2.jsonl", R"({"format":"pmixflow-events","version":2,"env":"sim","seed":0,"inputs":{}})"
                            "\n" +
                                recv + "\n" +
                                R"({"t":2,"ev":"log.end","who":"run","end":"quiescent","events":1,"stats":{}})" + "\n");
  log::LogReader r(path, {.strict = true});
  EXPECT_EQ(r.header().version, 2);
  const auto* e = r.next();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->str(log::Field::msg), "alloc_request");
  EXPECT_EQ(r.text(), recv);
  EXPECT_FALSE(r.send_line());
}

TEST(ShortRecv, InFlightRemembersOnlyWhatIsStillOnItsWay) {
  log::InFlight f;
  f.sent("a", "b", 1, ",\"msg\":\"x\"");
  f.sent("a", "b", std::nullopt, ",\"msg\":\"y\"");
  f.sent("a", "b", std::nullopt, ",\"msg\":\"z\"");
  EXPECT_EQ(f.size(), 3u);
  EXPECT_TRUE(f.received("a", "b", 1, ",\"msg\":\"x\""));
  EXPECT_FALSE(f.received("a", "b", std::nullopt, ",\"msg\":\"z\""));  // y was older: both forgotten
  EXPECT_EQ(f.size(), 0u);
  EXPECT_FALSE(f.take_oldest("a", "b", std::nullopt));
  // A recv unlike any send of its key (changed on its way) stands for the oldest.
  f.sent("a", "b", 2, ",\"msg\":\"x\"");
  f.sent("a", "b", 2, ",\"msg\":\"w\"");
  EXPECT_FALSE(f.received("a", "b", 2, ",\"msg\":\"x\",\"stamped\":1"));
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.take_oldest("a", "b", 2)->tail, ",\"msg\":\"w\"");
}

}  // namespace
}  // namespace pmixflow

namespace pmixflow::test::short_recv_numbered_tests {

template <class E>
Line numbered(std::uint64_t message, double t, std::string who, E e) {
  Line l = line(t, std::move(who), std::move(e));
  l.message = message;
  return l;
}

ev::Send launch(const char* nspace, std::uint64_t procs = 1) {
  return ev::Send{.to = "daemon:n1", .msg = "launch_procs", .nspace = nspace, .procs = procs, .bytes = 5};
}
ev::Recv launched(const char* nspace, std::uint64_t procs = 1) {
  return ev::Recv{.from = "controller", .msg = "launch_procs", .nspace = nspace, .procs = procs, .bytes = 5};
}

// What the simulator vouches for spares rendering, never changes a byte: the log written with
// the message numbers is the one written without them, and reads back the same.
void expect_same_log(const std::vector<Line>& lines) {
  TempDir dir;
  const std::string plain = write_log(dir, lines, false, "plain.jsonl");
  const std::string vouched = write_log(dir, lines, true, "numbered.jsonl");
  EXPECT_EQ(file_lines(vouched), file_lines(plain));
  EXPECT_EQ(read_texts(vouched), read_texts(plain));
}

TEST(ShortRecvNumbered, ARecvVouchedForAsItsSendIsWrittenShortAndReadWhole) {
  TempDir dir;
  const std::string path = write_log(
      dir, {numbered(1, 1, "controller", launch("job-1.1")), numbered(1, 2, "daemon:n1", launched("job-1.1"))}, true);
  const auto file = file_lines(path);
  ASSERT_EQ(file.size(), 4u);
  EXPECT_EQ(file[2], R"({"t":2,"ev":"recv","who":"daemon:n1","from":"controller"})");
  EXPECT_EQ(read_texts(path)[1],
            R"({"t":2,"ev":"recv","who":"daemon:n1","from":"controller","msg":"launch_procs","nspace":"job-1.1",)"
            R"("procs":1,"bytes":5})");
}

TEST(ShortRecvNumbered, AnOlderSendStillOnItsWayKeepsTheRecvWhole) {
  // The first launch is never received: the second's recv, vouched for, is not the oldest of
  // its pair and is written whole; the third's, after it, short again.
  const std::vector<Line> lines = {
      numbered(1, 1, "controller", launch("job-1.1")), numbered(2, 1, "controller", launch("job-2.1")),
      numbered(3, 1, "controller", launch("job-3.1")), numbered(2, 2, "daemon:n1", launched("job-2.1")),
      numbered(3, 3, "daemon:n1", launched("job-3.1"))};
  TempDir dir;
  const auto file = file_lines(write_log(dir, lines, true));
  EXPECT_TRUE(Contains(file[4], R"("nspace":"job-2.1")")) << file[4];
  EXPECT_EQ(file[5], R"({"t":3,"ev":"recv","who":"daemon:n1","from":"controller"})");
  expect_same_log(lines);
}

TEST(ShortRecvNumbered, AnOlderSendWithTheSameContentIsTheOneAShortRecvStandsFor) {
  // Two launches alike: the second's recv comes first. Its content is the oldest send's, so it
  // is written short, standing for that one, as the reader will take it.
  expect_same_log({numbered(1, 1, "controller", launch("job-1.1")), numbered(2, 1, "controller", launch("job-1.1")),
                   numbered(2, 2, "daemon:n1", launched("job-1.1")), numbered(1, 3, "daemon:n1", launched("job-1.1"))});
}

TEST(ShortRecvNumbered, ARecvChangedOnItsWayOrWhoseSendIsForgottenIsJudgedByItsContent) {
  // The second launch's recv comes unnumbered and changed (other procs): the oldest send is
  // forgotten with it. Then a recv vouched for as that forgotten send: rendered and compared.
  const std::vector<Line> lines = {
      numbered(1, 1, "controller", launch("job-1.1")),  numbered(2, 1, "controller", launch("job-2.1")),
      numbered(3, 1, "controller", launch("job-2.1")),  line(2, "daemon:n1", launched("job-2.1", 7)),
      numbered(1, 3, "daemon:n1", launched("job-1.1")), numbered(2, 4, "daemon:n1", launched("job-2.1")),
      numbered(3, 5, "daemon:n1", launched("job-2.1"))};
  TempDir dir;
  const auto file = file_lines(write_log(dir, lines, true));
  EXPECT_TRUE(Contains(file[4], R"("procs":7)")) << file[4];
  EXPECT_TRUE(Contains(file[5], R"("nspace":"job-1.1")")) << "its send was forgotten: whole, " << file[5];
  expect_same_log(lines);
}

TEST(ShortRecvNumbered, RecvsOfOtherPairsAndIdsDoNotStandForEachOther) {
  InfoList info;
  info.add(key::ALLOC_NUM_CPUS, std::uint64_t{4});
  const auto request = [&](std::uint64_t id) {
    return ev::Send{.to = "controller", .msg = "alloc_request", .id = id, .info = info, .bytes = 9};
  };
  const auto got = [&](std::uint64_t id) {
    return ev::Recv{.from = "scheduler", .msg = "alloc_request", .id = id, .info = info, .bytes = 9};
  };
  expect_same_log({numbered(1, 1, "scheduler", request(1)), numbered(2, 1, "scheduler", request(2)),
                   numbered(3, 1, "controller", launch("job-1.1")), numbered(2, 2, "controller", got(2)),
                   numbered(3, 2, "daemon:n1", launched("job-1.1")), numbered(1, 3, "controller", got(1))});
}

TEST(ShortRecvNumbered, InFlightTakesAVouchedRecvAsItsSendsContent) {
  log::InFlight f;
  f.sent("a", "b", 1, ",\"msg\":\"x\"", 0, 10);
  f.sent("a", "b", 1, ",\"msg\":\"y\"", 0, 11);
  EXPECT_EQ(f.tail_of("a", "b", 11), ",\"msg\":\"y\"");
  EXPECT_EQ(f.received_as("a", "b", 1, 11), false);  // x is older and not its content
  EXPECT_EQ(f.size(), 0u);
  EXPECT_EQ(f.received_as("a", "b", 1, 11), false);  // nothing left of its key: whole
  f.sent("a", "b", 1, ",\"msg\":\"z\"", 0, 12);
  EXPECT_EQ(f.received_as("a", "b", 1, 99), std::nullopt);  // not remembered: ask received()
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.received_as("a", "b", 1, 12), true);
  EXPECT_EQ(f.received_as("a", "b", 1, 0), std::nullopt);  // unnumbered: nothing vouched for
}

}  // namespace pmixflow::test::short_recv_numbered_tests
