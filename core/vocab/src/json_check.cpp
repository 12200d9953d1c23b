#include "pmixflow/vocab/json_check.hpp"

#include <algorithm>
#include <vector>

#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow {
namespace {

// Where the scan is: one frame per open array or object, with the member it is in.
struct Frame {
  bool object = false;
  bool expect_key = true;  // an object between members: the next string is a key
  std::string key;         // an object's current member, as a message shows it
  std::size_t index = 0;   // an array's current element
};

// The member's path, cut as a value is (a hundred nested arrays make a long one).
std::string path(const std::vector<Frame>& stack) {
  std::string out;
  for (const Frame& f : stack) {
    if (!f.object)
      out += "[" + std::to_string(f.index) + "]";
    else if (!f.key.empty())
      out += (out.empty() ? "" : ".") + f.key;
  }
  return cut_value(out);
}

// The end of the string whose opening quote is at `open` (its closing quote, or the end).
std::size_t string_end(std::string_view text, std::size_t open) {
  std::size_t i = open + 1;
  while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
  return std::min(i, text.size());
}

}  // namespace

std::optional<JsonTextProblem> json_text_problem(std::string_view text, std::size_t max_depth) {
  std::vector<Frame> stack;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      if (stack.size() >= max_depth)
        return JsonTextProblem{path(stack), "nested deeper than " + std::to_string(max_depth) + " levels"};
      stack.emplace_back().object = c == '{';
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      Frame& f = stack.back();
      f.object ? void(f.expect_key = true) : void(++f.index);
    } else if (c == '"') {
      const std::size_t end = string_end(text, i);
      const std::string_view inside = text.substr(i + 1, end - i - 1);
      const bool key = !stack.empty() && stack.back().object && stack.back().expect_key;
      if (key) {
        stack.back().key = cut_value(inside);
        stack.back().expect_key = false;
      }
      if (!is_utf8(inside))
        return JsonTextProblem{path(stack),
                               std::string(key ? "a key" : "a string") + " that is " + invalid_utf8_text(inside)};
      i = end;
    }
  }
  return std::nullopt;
}

std::string json_error_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  std::string out;
  // The input is one line: its column says where.
  constexpr std::string_view kFirstLine = "at line 1, column ";
  if (const auto at = what.find(kFirstLine); at != std::string_view::npos) {
    out.append(what.substr(0, at)).append("at column ");
    what.remove_prefix(at + kFirstLine.size());
  }
  // What nlohmann last read is a token of the input, which may be a megabyte long.
  constexpr std::string_view kLastRead = "; last read: '";
  const auto last = what.find(kLastRead);
  if (last == std::string_view::npos) return out + cut_value(what);
  out.append(what.substr(0, last));
  std::string_view token = what.substr(last + kLastRead.size());
  if (token.ends_with('\'')) token.remove_suffix(1);
  return out + "; last read: " + quote_value(token);
}

std::string join_field(const std::string& prefix, const std::string& field) {
  if (prefix.empty()) return field;
  if (field.empty()) return prefix;
  return prefix + (field.front() == '[' ? "" : ".") + field;
}

}  // namespace pmixflow
