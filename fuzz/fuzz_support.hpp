// What every fuzz target shares: the input as text, as a file (for the parsers that read a
// path), and the rule that a documented refusal is the normal outcome of a bad input.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A scratch directory of this process, removed at exit: parsers that take a path read the
// input from a file in it. One per process, so that parallel fuzzing jobs (-jobs=N) do not
// overwrite each other's inputs.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto d = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / ("pmixflow-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

// Writes `bytes` to `name` in the scratch directory (replacing it) and returns its path.
inline std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = (scratch_dir() / name).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();  // the fuzzing machine's fault, not the parser's: stop loudly
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
  return path;
}

// Runs `parse`; an InputError is the documented answer to a bad input, so it is swallowed.
// Anything else escapes, and libFuzzer reports it as a crash (an uncaught exception aborts).
template <class F>
bool refused_or_ok(F&& parse) {
  try {
    parse();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace pmixflow::fuzz
