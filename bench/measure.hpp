// One command run as a user waits for it: from fork to exit, with the CPU it used and its
// peak resident memory, as the kernel accounts them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pmixflow::bench {

struct ProcessCost {
  double wall_s = 0;
  double cpu_s = 0;  // user + system
  double peak_rss_mb = 0;
  int exit_status = 0;  // 128 + signal when killed
  bool timed_out = false;
};

// Runs argv[0] with its standard output into `stdout_path` (empty: /dev/null) and its errors
// into `stderr_path`. Killed after `limit_s` seconds of wall time when one is given.
ProcessCost run_process(const std::vector<std::string>& argv, const std::string& stdout_path,
                        const std::string& stderr_path, std::optional<double> limit_s = std::nullopt);

}  // namespace pmixflow::bench
