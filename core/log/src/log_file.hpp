// A log file opened for reading as it is: plain, or gzip-compressed (events.jsonl.gz), told
// apart by its first bytes rather than its name, behind the same FILE* so that the reader's
// line handling is one and the same.
#pragma once

#include <cstdio>
#include <string>

namespace pmixflow::log {

struct OpenedLog {
  std::FILE* file = nullptr;  // null: see errno
  bool compressed = false;
};

OpenedLog open_log_file(const std::string& path);

}  // namespace pmixflow::log
