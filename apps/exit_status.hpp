// pmixflow's exit statuses, one meaning each. The table below is what `pmixflow --help` prints
// and what the README's "Exit status" section quotes (a test holds the two together).
#pragma once

namespace pmixflow::cli {

// Something pmixflow itself got wrong ("this is a bug"): sysexits.h's EX_SOFTWARE.
inline constexpr int kInternalError = 70;

inline constexpr const char* kExitStatusHelp =
    "Exit status:\n"
    "  0    success: the run finished and every check it was given held (diff: the runs agree)\n"
    "  1    the run finished, but a check did not hold: an expectation or assertion, a call never\n"
    "       answered, a run that stopped progressing with work outstanding (diff: the runs differ;\n"
    "       sweep: a run failed or did not run; pmixflow-view: a picture it cannot write, a window\n"
    "       with no display)\n"
    "  2    bad input or usage: the file, line and field, or the option, is named (an empty value\n"
    "       too: it names nothing; a log every reader refuses alike); a policy that failed is named\n"
    "       as the culprit\n"
    "  3    emul: the run was cut (--timeout reached, or a party died); its log says where\n"
    "  70   internal error: a bug in pmixflow; the message says what to report\n"
    "  130  stopped by a signal (Ctrl-C, SIGTERM): a run's log is cut there and no summary.json or\n"
    "       jobs.csv is written (sim, emul, sweep); a hand tool first cleans up what it started\n";

}  // namespace pmixflow::cli
