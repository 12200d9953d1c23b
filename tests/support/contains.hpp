// gmock is not linked: a substring check that prints both sides when it fails.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace pmixflow::test {

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

}  // namespace pmixflow::test
