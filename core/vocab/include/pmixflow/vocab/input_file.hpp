// Files named as inputs. Opening a directory succeeds on Linux and reads as an empty file, and
// opening a named pipe waits for a writer that may never come, so a reader asks here first: a
// path that is not a file is named as what it is, not read as an empty, malformed or endless
// input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pmixflow {

// Throws InputError "PATH: is a directory, not WHAT" ("a scenario file", "an SWF trace") when
// `path` is a directory; anything else is left to the reader's own open.
void refuse_directory(const std::string& path, std::string_view what);

// Throws InputError naming `path` and why, unless it is a regular file this process may read
// (symbolic links followed): no such file, a loop of symbolic links, a directory, a named pipe,
// a device or a socket, no permission. Asks the file system only: nothing is opened.
void require_regular_file(const std::string& path, std::string_view what);

// The largest input read whole into memory (a run's jobs.csv or summary.json): some hundred
// times what a million-job run writes; a larger file, a sparse one say, is refused unread.
inline constexpr std::uintmax_t kMaxWholeFileBytes = std::uintmax_t{1} << 30;

// The content of `path`, a regular file (require_regular_file) of at most kMaxWholeFileBytes;
// InputError naming it otherwise, or when it cannot be read.
std::string read_whole_file(const std::string& path, std::string_view what);

}  // namespace pmixflow
