// The checks a JSON text passes before it is parsed (json_input.hpp parses it): nesting depth
// and UTF-8, with nlohmann's messages made readable. No JSON library here: the vocabulary
// layer depends on nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pmixflow {

inline constexpr std::size_t kMaxJsonDepth = 64;

struct JsonTextProblem {
  std::string field;  // where: "info.PMIX_ALLOC_TIME", "app[1].argv[0]"; empty at the top level
  std::string what;
};

// One pass over the text, before it is parsed: nesting deeper than `max_depth`, or a string
// that is not UTF-8, named by the member it is in. Nothing for text it cannot follow (nlohmann
// then says what is wrong with it).
std::optional<JsonTextProblem> json_text_problem(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// nlohmann's message without its "[json.exception.parse_error.101] " tag, with what it quotes
// of the input cut as quote_value cuts.
std::string json_error_text(std::string_view what);

// "scheduler" + "queues.gold" = "scheduler.queues.gold".
std::string join_field(const std::string& prefix, const std::string& field);

}  // namespace pmixflow
