// The lines of a log file, bounded: a line longer than the limit is refused where it
// passes the limit, so that a file whose line never ends (a sparse file, a log another tool
// garbled) costs the reader that much memory and no more. Reads in blocks, and hands a line
// over as a view into them when it lies in one (most do), else assembled.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow::log {

class LineSource {
 public:
  enum class Got { Line, Partial, End, TooLong, Failed };

  LineSource(std::FILE* file, std::size_t max_line) : file_(file), max_line_(max_line), block_(kBlock) {}

  // The next line, without its newline (Line); at the end of what is there, the bytes after
  // the last newline (Partial, kept: a later call after more is written goes on from them) or
  // nothing (End). TooLong: the line passed the limit; Failed: see errno.
  Got next(std::string_view& line);
  // Bytes of the lines handed over, newlines included: where the next line starts.
  std::uint64_t consumed() const { return consumed_; }

 private:
  static constexpr std::size_t kBlock = 256 * 1024;
  bool refill();

  std::FILE* file_;
  std::size_t max_line_;
  std::vector<char> block_;
  std::size_t at_ = 0, end_ = 0;
  std::string pending_;  // a line begun in an earlier block
  bool handed_pending_ = false;
  std::uint64_t consumed_ = 0;
};

}  // namespace pmixflow::log
