// The known word a user probably meant: an option, a sub-command, a policy or a level typed
// with a letter or two wrong. One measure for every message that suggests, so that "--sead",
// "simm" and "eazy" are near misses by the same rule.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pmixflow {

// Edits (insert, delete, replace) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The word of `known` nearest to `word` when it is a near miss: two edits at most, three for a
// word of more than eight characters, and fewer edits than `word` has characters (so that "x"
// is not "a near miss" of every one-letter word). Empty when none is.
std::string nearest_word(std::string_view word, const std::vector<std::string>& known);

// " (did you mean easy?)" for nearest_word's answer, or nothing: ready to append to a refusal.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& known);

}  // namespace pmixflow
