// pmixflow's exit statuses, one meaning each (README, "Exit status"; `pmixflow --help`).
#pragma once

namespace pmixflow::cli {

// Something pmixflow itself got wrong ("this is a bug"): sysexits.h's EX_SOFTWARE.
inline constexpr int kInternalError = 70;

}  // namespace pmixflow::cli
