// Run directories damaged as a disk, a copy or another tool damages them, one way each, for the
// tests that hold every reader of runs (report, outcomes, diff, compare, the viewer) to the same
// answer: refused, with the same message naming the file and the line.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow_run.hpp"

namespace pmixflow::test {

enum class Damage {
  EndlessLine,       // a last line that never ends: longer than the limit, no newline
  Fifo,              // events.jsonl is a named pipe nobody writes
  Directory,         // events.jsonl is a directory
  SymlinkLoop,       // events.jsonl is a link to itself
  NulByte,           // a NUL byte inside the third line
  NodeWithoutField,  // a node event without its `sessions`, which node events always have
  HugeTime,          // the third line at t 1e308
  NegativeTime,      // the third line at t -1
};

inline const std::vector<std::pair<Damage, std::string>>& all_damages() {
  static const std::vector<std::pair<Damage, std::string>> all{
      {Damage::EndlessLine, "endless line"}, {Damage::Fifo, "FIFO"},
      {Damage::Directory, "directory"},      {Damage::SymlinkLoop, "symlink loop"},
      {Damage::NulByte, "NUL byte"},         {Damage::NodeWithoutField, "node without a required field"},
      {Damage::HugeTime, "time 1e308"},      {Damage::NegativeTime, "negative time"}};
  return all;
}

// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return lines;
}

inline void write_lines(const std::filesystem::path& file, const std::vector<std::string>& lines) {
  std::ofstream out(file, std::ios::binary);
  for (const auto& l : lines) out << l << '\n';
}

// Copies the run directory `good` to `bad` with its events.jsonl damaged as `damage` says;
// gives the line the readers should name (0: none, the file itself is at fault).
inline std::size_t damage_run(const std::filesystem::path& good, const std::filesystem::path& bad, Damage damage) {
  namespace fs = std::filesystem;
  fs::remove_all(bad);
  fs::copy(good, bad, fs::copy_options::recursive);
  const fs::path log = bad / "events.jsonl";
  auto lines = lines_of(slurp(log));
  switch (damage) {
    case Damage::EndlessLine: {
      lines.resize(5);
      write_lines(log, lines);
      std::ofstream(log, std::ios::app | std::ios::binary) << std::string((16u << 20) + 1, 'x');
      return 6;
    }
    case Damage::Fifo:
      fs::remove(log);
      ::mkfifo(log.c_str(), 0600);
      return 0;
    case Damage::Directory:
      fs::remove(log);
      fs::create_directory(log);
      return 0;
    case Damage::SymlinkLoop:
      fs::remove(log);
      fs::create_symlink("events.jsonl", log);
      return 0;
    case Damage::NulByte: lines[2].insert(lines[2].find("\"who\""), std::string("\"x\":\"a\0b\",", 10)); break;
    case Damage::NodeWithoutField: {
      std::size_t i = 1;
      while (lines[i].find("\"ev\":\"node\"") == std::string::npos) ++i;
      auto e = nlohmann::ordered_json::parse(lines[i]);
      e.erase("sessions");
      lines[i] = e.dump();
      write_lines(log, lines);
      return i + 1;
    }
    case Damage::HugeTime:
    case Damage::NegativeTime: {
      const auto at = lines[2].find(",\"ev\"");
      lines[2] = std::string("{\"t\":") + (damage == Damage::HugeTime ? "1e308" : "-1") + lines[2].substr(at);
      break;
    }
  }
  write_lines(log, lines);
  return 3;
}

}  // namespace pmixflow::test
