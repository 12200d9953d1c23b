#include "pmixflow/log/render.hpp"

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow::log {
namespace {

void render_value(std::string& out, const FieldValue& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string_view>)
          json_quote_into(out, x);
        else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::int64_t>)
          out += std::to_string(x);
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

}  // namespace

void render_fields(std::string& out, const EventView& e) {
  const auto& fields = spec(e.kind).fields;
  for (std::size_t i = 0; i < e.values.size() && i < fields.size(); ++i) {
    if (std::holds_alternative<std::monostate>(e.values[i])) continue;
    out += ',';
    json_quote_into(out, spec(fields[i].field).key);
    out += ':';
    render_value(out, e.values[i]);
  }
}

void render_line(std::string& out, const EventView& e) {
  out += "{\"t\":";
  json_number_into(out, e.t);
  out += ",\"ev\":";
  json_quote_into(out, spec(e.kind).name);
  out += ",\"who\":";
  json_quote_into(out, e.who);
  render_fields(out, e);
  out += "}\n";
}

}  // namespace pmixflow::log
