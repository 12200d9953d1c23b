#include "pmixflow/vocab/near_miss.hpp"

#include <algorithm>

namespace pmixflow {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the Levenshtein table at a time: names are short, and so is the row.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& known) {
  if (word.empty()) return {};
  const std::size_t most = std::min<std::size_t>(word.size() > 8 ? 3 : 2, word.size() - 1);
  std::string best;
  std::size_t best_distance = most + 1;
  for (const std::string& candidate : known)  // the first of equally near words wins
    if (const std::size_t d = edit_distance(word, candidate); d > 0 && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known) {
  const std::string near = nearest_word(word, known);
  return near.empty() ? std::string() : " (did you mean " + near + "?)";
}

}  // namespace pmixflow
