// What `--version` prints, the same way in every pmixflow program: which release, which commit
// when built from a checkout, and the libraries whose behaviour a run depends on (a result is
// reproduced with the same SimGrid and OpenPMIx, not just the same pmixflow).
#pragma once

#include <string>
#include <string_view>

namespace pmixflow::version {

struct BuildInfo {
  std::string_view version;      // the project's, "0.1.0"
  std::string_view commit;       // abbreviated git commit; empty when not built from a checkout
  std::string_view commit_date;  // that commit's date, YYYY-MM-DD
  std::string_view simgrid;      // versions built against; empty for a library not used
  std::string_view pmix;
  std::string_view hwloc;
};

// Generated at build time (build_info.cpp.in).
BuildInfo build_info();

// "pmixflow 0.1.0 (git cf68235, 2026-12-04)", or "pmixflow 0.1.0" outside a checkout.
std::string version_line(std::string_view program);

// The line above, then "built with SimGrid 3.32, OpenPMIx 4.2.2, hwloc 2.9.0" (and `extra`,
// e.g. the viewer's Qt), naming only the libraries this build has.
std::string version_text(std::string_view program, std::string_view extra = {});

}  // namespace pmixflow::version
