// A line a page quotes, against a line a program printed: `…` in the quote stands for any text
// (the page leaves it out); the rest must be there, in order, the ends included.
#pragma once

#include <string>
#include <vector>

namespace pmixflow::test {

inline bool matches_quote(const std::string& quote, const std::string& line) {
  const std::string ellipsis = "\xe2\x80\xa6";
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const auto at = quote.find(ellipsis, from);
    parts.push_back(quote.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) break;
    from = at + ellipsis.size();
  }
  if (parts.size() == 1) return quote == line;
  if (line.rfind(parts.front(), 0) != 0) return false;
  std::size_t pos = parts.front().size();
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    pos = line.find(parts[i], pos);
    if (pos == std::string::npos) return false;
    pos += parts[i].size();
  }
  const std::string& last = parts.back();
  return line.size() >= pos + last.size() && line.compare(line.size() - last.size(), last.size(), last) == 0;
}

}  // namespace pmixflow::test
