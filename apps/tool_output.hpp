// How `pmixflow request`, `session` and `spawn` show an answer: with PMIx's names, never only
// the wire keys - the status by name, each info key by its upstream PMIX_ name where the flow
// knows one (vocab/keys.hpp), values as a person writes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pmixflow/vocab/info.hpp"

namespace pmixflow::cli {

// "PMIX_SUCCESS  PMIX_ALLOC_ID=alloc-3 PMIX_SESSION_ID=3 PMIX_ALLOC_NODE_LIST=n01:8"
std::string answer_line(Status status, const InfoList& info);

// {"status":"PMIX_SUCCESS","code":0,"info":{"PMIX_ALLOC_ID":"alloc-3",...}}: keys by name, a
// key given more than once with its values in an array, statuses and directives by name, procs
// as "nspace.rank", info arrays as objects, apps as {"cmd","argv","env","np"}.
nlohmann::ordered_json answer_json(Status status, const InfoList& info);

// The PMIX_ name of a key string, or the key itself when the flow knows no name for it.
std::string key_name(const std::string& key);

}  // namespace pmixflow::cli
