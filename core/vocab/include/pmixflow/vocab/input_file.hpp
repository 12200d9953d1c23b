// Files named as inputs. Opening a directory succeeds on Linux and reads as an empty file, so
// every reader asks here first: a directory given for a file is named as one, not reported as
// an empty or malformed input.
#pragma once

#include <string>
#include <string_view>

namespace pmixflow {

// Throws InputError "PATH: is a directory, not WHAT" ("a scenario file", "an SWF trace") when
// `path` is a directory; anything else is left to the reader's own open.
void refuse_directory(const std::string& path, std::string_view what);

}  // namespace pmixflow
