#include <exception>
#include <iostream>

#include "commands.hpp"
#include "exit_status.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::cli {

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const PolicyError& e) {
    // Not pmixflow's fault, nor the input's as such: the policy it was asked to run.
    std::cerr << "pmixflow: error: " << e.what() << " (the run was stopped there; its event log is cut)\n";
    return kBadInput;
  } catch (const std::logic_error& e) {
    std::cerr << "pmixflow: internal error: " << e.what()
              << "\nThis is a bug in pmixflow, not in your input: please report it with the command line, its input "
                 "files and this message.\n";
    return kInternalError;
  } catch (const std::exception& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  }
}

}  // namespace pmixflow::cli
