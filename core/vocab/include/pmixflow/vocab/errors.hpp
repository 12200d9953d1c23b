// Errors for bad input (files, scenario lines, host lists). Every one names where it came
// from, so a user can go straight to the offending file, line and field.
#pragma once

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace pmixflow {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, std::string field, const std::string& what)
      : std::runtime_error(format(file, line, field, what)),
        file_(std::move(file)),
        line_(line),
        field_(std::move(field)),
        detail_(what) {}

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }  // 0 when the input has no lines (a command-line value)
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  static std::string format(const std::string& file, std::size_t line, const std::string& field,
                            const std::string& what) {
    std::string out;
    if (!file.empty()) out += file;
    if (line > 0) out += ":" + std::to_string(line);
    if (!field.empty()) out += (out.empty() ? "" : ": ") + std::string("field '") + field + "'";
    if (!out.empty()) out += ": ";
    return out + what;
  }
  std::string file_;
  std::size_t line_;
  std::string field_;
  std::string detail_;
};

// A scheduling policy (a shipped one or a user's library) failed while it was consulted: the
// run names it as the culprit rather than reporting a bug of pmixflow's own.
class PolicyError : public std::runtime_error {
 public:
  PolicyError(std::string policy, const std::string& what, std::exception_ptr raised = nullptr)
      : std::runtime_error("the policy '" + policy + "' failed: " + what),
        policy_(std::move(policy)),
        detail_(what),
        raised_(std::move(raised)) {}
  const std::string& policy() const { return policy_; }
  const std::string& detail() const { return detail_; }  // what it said
  // What the policy's code let out, when it was not a std::exception: possibly not the
  // policy's own (an environment unwinding an actor it kills), which must go on its way.
  const std::exception_ptr& raised() const { return raised_; }

 private:
  std::string policy_;
  std::string detail_;
  std::exception_ptr raised_;
};

// What pmixflow itself got wrong: reported as a bug (exit 70), with what to send.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace pmixflow
