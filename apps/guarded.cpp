#include <exception>
#include <iostream>

#include "commands.hpp"
#include "exit_status.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::cli {
namespace {

bool is_option(const std::string& name) { return name.starts_with("--"); }

// A refused option's value reads as CLI11's refusals do ("--policy: unknown policy ..."), not
// as a file's field ("--policy: field 'policy': ..."); a file's keeps its file, line and field.
std::string input_error_text(const InputError& e) {
  if (e.line() == 0 && is_option(e.file())) {
    // The option's own name as its field says nothing more; a part of its value does.
    const bool own = e.field().empty() || e.field() == e.file() || "--" + e.field() == e.file();
    return e.file() + ": " + (own ? "" : e.field() + ": ") + e.detail();
  }
  if (e.line() == 0 && is_option(e.field()))  // a value naming a file: "--policy: lib.so: not found"
    return e.field() + ": " + (e.file().empty() ? "" : e.file() + ": ") + e.detail();
  return e.what();
}

}  // namespace

std::string message_prefix(const std::string& command) {
  return command.empty() ? "pmixflow: " : "pmixflow " + command + ": ";
}

int guarded(const std::string& command, const std::function<int()>& body) {
  const std::string prefix = message_prefix(command);
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << prefix << input_error_text(e) << "\n";
    return kBadInput;
  } catch (const PolicyError& e) {
    // Not pmixflow's fault, nor the input's as such: the policy it was asked to run.
    std::cerr << prefix << e.what() << " (the run was stopped there; its event log is cut)\n";
    return kBadInput;
  } catch (const std::logic_error& e) {
    std::cerr << prefix << "internal error: " << e.what()
              << "\nThis is a bug in pmixflow, not in your input: please report it with the command line, its input "
                 "files and this message.\n";
    return kInternalError;
  } catch (const std::exception& e) {
    std::cerr << prefix << e.what() << "\n";
    return kBadInput;
  }
}

}  // namespace pmixflow::cli
