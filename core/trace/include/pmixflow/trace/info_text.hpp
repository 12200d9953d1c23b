// PMIx attributes and apps given as text on a command line (pmixflow request, session, spawn),
// read as a scenario file reads them (scenario.hpp, parse_info_json): the same keys by upstream
// name or key string, the same types, the same checks and the same errors, only with the
// argument named instead of a file, line and field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// `KEY=VALUE` arguments, in order: `PMIX_ALLOC_NUM_NODES=2`, `pmix.alloc.time=1:00`. A VALUE is
// typed by its key as the scenario's JSON would be: a number for a number, `true`/`false` for a
// bool, a whole number of seconds or a `days:hh:mm:ss` string for PMIX_ALLOC_TIME, JSON text for
// an info array or an app; an unknown pmix.* key carries a bool, a number or a string, as
// written. A bool key alone (`PMIX_ALLOC_PREEMPTIBLE`) is true. Throws InputError
// "WHAT: argument 'ARG': ..." for the first argument it cannot read.
InfoList info_from_text(const std::vector<std::string>& key_values, const std::string& what);

// The apps of `--app 'CMD ARGS' [--np N] [--runtime S]`: the command split at white space
// (`sleep 30` runs 30 s; any other command needs its run time), or the scenario's own JSON form
// of an app or an array of apps given whole (then without np or runtime). Throws InputError
// naming `--app` as info_from_text does.
std::vector<App> apps_from_text(const std::string& command, std::optional<std::uint32_t> np,
                                std::optional<double> runtime, const std::string& what);

}  // namespace pmixflow
