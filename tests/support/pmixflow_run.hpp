// Running the real `pmixflow` binary from a test, and reading what it wrote. SimGrid allows
// one engine per process, so every simulation a test makes is its own process.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "pmixflow/log/reader.hpp"

namespace pmixflow::test {

using json = nlohmann::json;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A fresh, empty directory for one test's outputs.
inline std::filesystem::path scratch_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::temp_directory_path() / ("pmixflow-test-" + std::to_string(::getpid()) + "-" +
                                                       (info ? std::string(info->name()) : "x") + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `program` with `args`, from `cwd` when one is given, killed after `timeout_s` seconds
// when one is given (exit 124).
inline RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& cwd = "", int timeout_s = 0) {
  // Its own stdio files, so that a test may run several at once (a tool held while another runs).
  static std::atomic<unsigned> calls{0};
  const auto dir = scratch_dir("stdio-" + std::to_string(++calls));
  std::string cmd = (cwd.empty() ? std::string() : "cd " + quote(cwd) + " && ") +
                    (timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : std::string()) + quote(program);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string()) + " </dev/null";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  std::filesystem::remove_all(dir);
  return r;
}

// Runs pmixflow with `args`, from `cwd` when one is given (a scenario's hostfiles are named
// relative to the repository), killed after `timeout_s` seconds when one is given (exit 124).
inline RunResult run_pmixflow(const std::vector<std::string>& args, const std::string& cwd = "", int timeout_s = 0) {
  return run_program(PMIXFLOW_BIN, args, cwd, timeout_s);
}

// An event log as two identical runs write it: byte for byte the same but for the closing
// line's wall-clock time, which is zeroed here.
inline std::string comparable_log(const std::filesystem::path& file) {
  std::string text = slurp(file);
  const auto last = text.rfind("{\"t\":", text.size() >= 2 ? text.size() - 2 : 0);
  const auto wall = text.find("\"wall_s\":", last == std::string::npos ? 0 : last);
  if (last == std::string::npos || wall == std::string::npos) return text;
  const auto value = wall + 9;
  const auto end = text.find_first_of(",}", value);
  return text.replace(value, end - value, "0");
}

// The header, then every event as the LogReader delivers it: a short recv of a version 3 log
// whole, as it is read (rebuilt from its send).
inline std::vector<json> read_events(const std::filesystem::path& file) {
  std::vector<json> events;
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return events;
  events.push_back(json::parse(line));
  log::LogReader reader(file.string());
  while (reader.next()) events.push_back(json::parse(reader.text()));
  return events;
}

// "who>to:msg" for every message sent on behalf of one request, in the order sent.
inline std::vector<std::string> sent_hops(const std::vector<json>& events, const std::string& corr) {
  std::vector<std::string> out;
  for (const auto& e : events)
    if (e.value("ev", "") == "send" && e.value("corr", "") == corr)
      out.push_back(e["who"].get<std::string>() + ">" + e["to"].get<std::string>() + ":" + e["msg"].get<std::string>());
  return out;
}

inline std::string source_path(const std::string& rel) { return std::string(PMIXFLOW_SOURCE_DIR) + "/" + rel; }

inline std::string shared_path(const std::string& rel) { return std::string(PMIXFLOW_SHARED_DIR) + "/" + rel; }

inline bool have_shared_data() { return std::filesystem::is_directory(PMIXFLOW_SHARED_DIR "/data"); }

#define PMIXFLOW_REQUIRE_SHARED_DATA()                                                          \
  do {                                                                                          \
    if (!::pmixflow::test::have_shared_data())                                                  \
      GTEST_SKIP() << "../shared/data not found: skipping test that needs the shared data set"; \
  } while (0)

}  // namespace pmixflow::test
