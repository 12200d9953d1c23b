#include <exception>
#include <iostream>

#include "commands.hpp"

namespace pmixflow::cli {

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << "pmixflow: error: " << e.what() << "\n";
    return kBadInput;
  }
}

}  // namespace pmixflow::cli
