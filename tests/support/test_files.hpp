// Helpers shared by the unit tests that read files: a scratch directory per test, a
// substring assertion that prints both sides, and catching the InputError a call must throw.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "contains.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::test {

// Runs `f`, which must throw InputError, and hands the error back for inspection; a missing
// throw fails the test rather than returning a default.
inline InputError expect_input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected InputError";
  return InputError("", 0, "", "none thrown");
}

// Each test gets its own directory, removed with everything in it at the end, so parallel
// ctest runs never share files.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "pmixflow") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string tag = info ? std::string(info->test_suite_name()) + "_" + info->name() : std::string("x");
    path_ = std::filesystem::temp_directory_path() /
            (std::string(prefix) + "_" + tag + "_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string dir() const { return path_.string(); }
  std::string write(const std::string& name, const std::string& content) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace pmixflow::test
