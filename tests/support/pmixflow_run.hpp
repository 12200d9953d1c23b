// Running the real `pmixflow` binary from a test, and reading what it wrote. SimGrid allows
// one engine per process, so every simulation a test makes is its own process.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

inline RunResult run_pmixflow(const std::vector<std::string>& args) {
  const auto dir = scratch_dir("stdio");
  std::string cmd = quote(PMIXFLOW_BIN);
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

inline std::vector<json> read_events(const std::filesystem::path& file) {
  std::vector<json> events;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) events.push_back(json::parse(line));
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
