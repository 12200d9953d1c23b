#include "pmixflow/log/reference.hpp"

#include <map>
#include <vector>

#include "pmixflow/log/catalogue.hpp"

namespace pmixflow::log {
namespace {

// A meaning may hold `|`, which would end a table cell.
std::string sentence(std::string_view text) {
  std::string out(text);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void kind_section(std::string& out, const EventSpec& k) {
  out += "### `" + std::string(k.name) + "`\n\n";
  out += sentence(k.meaning) + ". Written by " + std::string(k.writer) + ".\n\n";
  if (k.fields.empty()) {
    out += "No fields besides `t`, `ev` and `who`.\n\n";
    return;
  }
  out += "| field | type | present | meaning |\n|---|---|---|---|\n";
  for (const auto& use : k.fields) {
    const FieldSpec& f = spec(use.field);
    out += "| `" + std::string(f.key) + "` | " + std::string(field_type_name(f.type)) + " | " +
           (use.required ? "always" : "when it applies") + " | " + cell(f.meaning) + " |\n";
  }
  out += "\n";
}

}  // namespace

std::string reference_markdown() {
  std::string out = "## Kinds\n\n";
  out += "Every line after the header is `{\"t\":T,\"ev\":KIND,\"who\":PARTY, ...fields}`: `t` the time in seconds, ";
  out += "`ev` one of the kinds below, `who` the party that wrote it. Fields come in the order listed; a field ";
  out += "that does not apply is left out, never written empty.\n\n";
  for (const auto& k : all_kinds()) kind_section(out, k);
  out += "## Fields\n\nEvery key, with the one meaning it has wherever it appears.\n\n";
  out += "| field | type | meaning | in |\n|---|---|---|---|\n";
  std::map<Field, std::vector<std::string_view>> used_in;
  for (const auto& k : all_kinds())
    for (const auto& use : k.fields) used_in[use.field].push_back(k.name);
  for (std::size_t i = 0; i < all_fields().size(); ++i) {
    const FieldSpec& f = all_fields()[i];
    std::string kinds;
    for (auto name : used_in[static_cast<Field>(i)]) kinds += (kinds.empty() ? "" : ", ") + std::string(name);
    out += "| `" + std::string(f.key) + "` | " + std::string(field_type_name(f.type)) + " | " + cell(f.meaning) +
           " | " + kinds + " |\n";
  }
  return out;
}

std::string reference_text() {
  std::string out;
  for (const auto& k : all_kinds()) {
    std::string name(k.name);
    name.resize(std::max<std::size_t>(name.size() + 1, 24), ' ');
    out += name + std::string(k.meaning) + "\n";
  }
  return out;
}

}  // namespace pmixflow::log
