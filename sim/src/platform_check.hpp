// A platform file checked before the run starts: what SimGrid would otherwise report in its own
// words (an XML parse error naming no attribute) or by aborting mid-run (a pair of parties with
// no route between them, a link of zero bandwidth) is refused as bad input, naming the file.
#pragma once

#include <exception>
#include <string>

#include "declared_routes.hpp"
#include "pmixflow/sim/platform.hpp"

namespace pmixflow::sim {

// Throws InputError for SimGrid's refusal `e` of `file`: its line and, when the message quotes
// a value written on that line, the attribute that holds it.
[[noreturn]] void refuse_platform(const std::exception& e, const std::string& file);

// Throws InputError naming `file` when two parties of `m` that may talk have no route, or a
// link on a route has no bandwidth. SimGrid is asked for a route only once `declared` (which
// listened while `file` was loaded) shows it has one to give.
void check_routes(const Machine& m, const std::string& file, DeclaredRoutes& declared);

}  // namespace pmixflow::sim
