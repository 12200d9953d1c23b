// Helpers the emulator's unit tests share: readable gtest output for the flow's types, a scratch
// directory removed with everything in it, an environment variable set for one test, and a
// deadline on a Loop that fails the test instead of hanging it.
#pragma once

#include <stdlib.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>

#include "fake_env.hpp"  // PrintTo for Status and Address
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {
inline void PrintTo(const Proc& p, std::ostream* os) { *os << to_string(p); }
}  // namespace pmixflow

namespace pmixflow::emul::testing_support {

// A directory of its own under the system's temporary directory, removed (contents and all)
// when the test ends, whether it passed or not.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pmixflow-ut-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Sets (or, with nullopt, unsets) an environment variable until the end of the scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = ::getenv(name_.c_str())) old_ = old;
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// No test of emul_tests ends with GTEST_SKIP(): a skip, like any failure, is recorded through
// gtest's per-thread reporter, memory held only from thread-local storage; the Compat tests'
// forked PMIx peers then check for leaks with use_tls=0 (sanitizer_options.cpp) and report it, so
// one skip ahead of them fails five tests under ASan. A test of a known bug is named DISABLED_.

// Generous: what a test waits for takes milliseconds; a loaded machine may take far longer.
inline constexpr auto kDeadline = std::chrono::seconds(20);

// Fails the test and stops the loop if it is still running after `limit`: a test waits for
// events, never for a fixed time, and this keeps a missing event from hanging the suite.
inline LoopTimer fail_after(Loop& loop, const std::string& waiting_for, SteadyClock::duration limit = kDeadline) {
  return loop.after(limit, [&loop, waiting_for] {
    ADD_FAILURE() << "timed out waiting for " << waiting_for;
    loop.stop();
  });
}

}  // namespace pmixflow::emul::testing_support
