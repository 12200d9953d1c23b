// `pmixflow-party`: the process each party of an emulation runs, started by `pmixflow emul`
// (emul/include/pmixflow/emul/party.hpp). Its own small program, not a sub-command of
// `pmixflow`: a party links the core, the emulator and OpenPMIx, not SimGrid, whose libraries
// (with ns-3's) took tens of milliseconds of every party's start - a second of CPU for an
// emulation of a few dozen daemons, far more under the sanitizers.
//
//   pmixflow-party --as NAME [--control-fd FD] [--fail-start]
//   pmixflow-party --version
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>

#include "pmixflow/emul/party.hpp"
#include "version.hpp"

namespace {

constexpr int kUsage = 2;

int usage(std::string_view why) {
  std::cerr << "pmixflow-party: " << why
            << "\nusage: pmixflow-party --as NAME [--control-fd FD] [--fail-start] (started by pmixflow emul), or "
               "--version\n";
  return kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  int control_fd = 3;
  bool fail_start = false;
  bool named = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--version") {
      std::cout << pmixflow::version::version_text("pmixflow-party") << "\n";
      return 0;
    }
    if (arg == "--fail-start") {
      fail_start = true;
    } else if (arg == "--as" && i + 1 < argc) {
      named = true;  // the name is for people reading ps: nothing here reads it
      ++i;
    } else if (arg == "--control-fd" && i + 1 < argc) {
      const std::string_view v = argv[++i];
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), control_fd);
      if (ec != std::errc() || end != v.data() + v.size() || control_fd < 0)
        return usage("--control-fd: '" + std::string(v) + "' is not a file descriptor");
    } else {
      return usage("unexpected argument '" + std::string(arg) + "'");
    }
  }
  if (!named) return usage("--as NAME is required");
  return pmixflow::emul::run_party(control_fd, fail_start);
}
