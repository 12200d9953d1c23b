#include "pmixflow/log/json_scan.hpp"

#include <cstdint>
#include <string>

#include "pmixflow/vocab/utf8.hpp"

namespace pmixflow::log::detail {
namespace {

constexpr int kMaxDepth = 64;

class Scanner {
 public:
  Scanner(std::string_view s, std::deque<std::string>& storage) : s_(s), storage_(storage) {}

  std::optional<ScanError> object(std::vector<Member>& members) {
    space();
    if (!eat('{')) return error("", "a line is one JSON object, starting with '{'");
    space();
    if (eat('}')) return end_of_line();
    while (true) {
      Member m;
      space();
      std::string_view raw;
      if (!string(raw, m.key)) return error("", "expects a quoted key");
      space();
      if (!eat(':')) return error(std::string(m.key), "expects ':' after the key");
      space();
      const std::size_t start = i_;
      if (!value(m, 0)) return error(std::string(m.key), what_.empty() ? "not a JSON value" : what_);
      m.raw = s_.substr(start, i_ - start);
      members.push_back(m);
      space();
      if (eat('}')) return end_of_line();
      if (!eat(',')) return error(std::string(m.key), "expects ',' or '}' after the value (is the line cut short?)");
    }
  }

 private:
  std::optional<ScanError> end_of_line() {
    space();
    if (i_ != s_.size()) return error("", "text after the end of the object");
    return std::nullopt;
  }
  static std::optional<ScanError> error(std::string key, std::string what) {
    return ScanError{std::move(key), std::move(what)};
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool value(Member& m, int depth) {
    if (i_ >= s_.size()) return fail("the line ends where a value should be");
    const char c = s_[i_];
    if (c == '"') {
      m.type = JsonType::String;
      std::string_view raw;
      return string(raw, m.text);
    }
    if (c == '{' || c == '[') {
      m.type = c == '{' ? JsonType::Object : JsonType::Array;
      return nested(depth);
    }
    if (c == 't') return (m.type = JsonType::True, literal("true")) || fail("not a JSON value");
    if (c == 'f') return (m.type = JsonType::False, literal("false")) || fail("not a JSON value");
    if (c == 'n') return (m.type = JsonType::Null, literal("null")) || fail("not a JSON value");
    m.type = JsonType::Number;
    return number();
  }

  bool fail(std::string what) {
    what_ = std::move(what);
    return false;
  }

  bool number() {
    const std::size_t start = i_;
    eat('-');
    if (eat('0')) {
    } else if (!digits()) {
      return fail("not a JSON value");
    }
    if (eat('.') && !digits()) return fail("a number needs digits after '.'");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (!eat('+')) eat('-');
      if (!digits()) return fail("a number needs digits in its exponent");
    }
    return i_ > start;
  }
  bool digits() {
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }

  // An array or an object, checked member by member and kept as text.
  bool nested(int depth) {
    if (depth >= kMaxDepth) return fail("nested too deeply");
    const char close = s_[i_] == '{' ? '}' : ']';
    ++i_;
    space();
    if (eat(close)) return true;
    while (true) {
      space();
      if (close == '}') {
        std::string_view raw, key;
        if (!string(raw, key)) return fail("expects a quoted key inside an object");
        space();
        if (!eat(':')) return fail("expects ':' inside an object");
        space();
      }
      Member inner;
      if (!value(inner, depth + 1)) return false;
      space();
      if (eat(close)) return true;
      if (!eat(',')) return fail(std::string("expects ',' or '") + close + "' (is the line cut short?)");
    }
  }

  // A quoted string; `text` is a view of it without escapes, decoded into storage if need be.
  bool string(std::string_view& raw, std::string_view& text) {
    const std::size_t start = i_;
    if (!eat('"')) return false;
    bool escaped = false;
    while (i_ < s_.size() && s_[i_] != '"') {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c < 0x20) return fail("a control character inside a string");
      if (c >= 0x80) {
        // Strict JSON is UTF-8: a log another tool wrote with raw bytes is refused here, where
        // the line is named, not passed on to readers that choke on it.
        const std::size_t n = utf8_sequence(s_, i_);
        if (n == 0)
          return fail("not valid UTF-8 (byte " + hex_byte(s_[i_]) + " at column " + std::to_string(i_ + 1) + ")");
        i_ += n;
        continue;
      }
      if (c == '\\') {
        escaped = true;
        ++i_;
        if (i_ >= s_.size()) return fail("the line ends inside a string");
      }
      ++i_;
    }
    if (!eat('"')) return fail("the line ends inside a string (is it cut short?)");
    raw = s_.substr(start, i_ - start);
    const std::string_view inside = raw.substr(1, raw.size() - 2);
    if (!escaped) {
      text = inside;
      return true;
    }
    std::string& out = storage_.emplace_back();
    if (!decode(inside, out)) return fail("a bad escape inside a string");
    text = out;
    return true;
  }

  static bool hex4(std::string_view s, std::size_t at, std::uint32_t& v) {
    if (at + 4 > s.size()) return false;
    v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = s[k];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return false;
    }
    return true;
  }
  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  static bool decode(std::string_view in, std::string& out) {
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (in[k] != '\\') {
        out += in[k];
        continue;
      }
      const char e = in[++k];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(in, k + 1, cp)) return false;
          k += 4;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
            std::uint32_t low = 0;
            if (k + 6 >= in.size() + 1 || in.substr(k + 1, 2) != "\\u" || !hex4(in, k + 3, low) || low < 0xDC00 ||
                low >= 0xE000)
              return false;
            k += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: return false;
      }
    }
    return true;
  }

  std::string_view s_;
  std::deque<std::string>& storage_;
  std::size_t i_ = 0;
  std::string what_;
};

}  // namespace

std::optional<ScanError> scan_object(std::string_view line, std::vector<Member>& members,
                                     std::deque<std::string>& storage) {
  members.clear();
  return Scanner(line, storage).object(members);
}

}  // namespace pmixflow::log::detail
