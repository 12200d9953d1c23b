#include "pmixflow/log/render.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow::log {
namespace {

template <class Int>
void integer_into(std::string& out, Int x) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, x).ptr;
  out.append(digits, end);
}

void render_value(std::string& out, const FieldValue& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string_view>)
          json_quote_into(out, x);
        else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::int64_t>)
          integer_into(out, x);
        else if constexpr (std::is_same_v<T, double>)
          json_number_into(out, x);
        else if constexpr (std::is_same_v<T, bool>)
          out += x ? "true" : "false";
        else if constexpr (std::is_same_v<T, Status>)
          json_quote_into(out, status_name(x));
        else if constexpr (std::is_same_v<T, JsonText>)
          out += x.text;
      },
      v);
}

// Keys and kind names are the catalogue's identifiers, which need no escaping (a catalogue
// test holds them to it): each key's `,"key":` and each kind's `,"ev":"kind","who":` are
// spelled once, and a line is mostly made of them, appended whole.
struct Spellings {
  std::array<std::string, kFieldCount> keys;
  std::array<std::string, kKindCount> kinds;
  Spellings() {
    for (std::size_t f = 0; f < kFieldCount; ++f)
      keys[f] = ",\"" + std::string(spec(static_cast<Field>(f)).key) + "\":";
    for (std::size_t k = 0; k < kKindCount; ++k)
      kinds[k] = ",\"ev\":\"" + std::string(spec(static_cast<EventKind>(k)).name) + "\",\"who\":";
  }
};

const Spellings& spellings() {
  static const Spellings s;
  return s;
}

void key_into(std::string& out, Field f) { out += spellings().keys[static_cast<std::size_t>(f)]; }

}  // namespace

void render_envelope(std::string& out, const EventView& e, std::string_view t_text) {
  out += "{\"t\":";
  if (t_text.empty())
    json_number_into(out, e.t);
  else
    out += t_text;
  out += spellings().kinds[static_cast<std::size_t>(e.kind)];
  json_quote_into(out, e.who);
}

void render_fields(std::string& out, const EventView& e, std::size_t first, std::size_t last) {
  const auto& fields = spec(e.kind).fields;
  last = std::min({last, e.values.size(), fields.size()});
  for (std::size_t i = first; i < last; ++i) {
    if (std::holds_alternative<std::monostate>(e.values[i])) continue;
    key_into(out, fields[i].field);
    render_value(out, e.values[i]);
  }
}

void render_uint_field(std::string& out, Field f, std::uint64_t v) {
  key_into(out, f);
  integer_into(out, v);
}

void render_line(std::string& out, const EventView& e) {
  render_envelope(out, e);
  render_fields(out, e);
  out += "}\n";
}

}  // namespace pmixflow::log
