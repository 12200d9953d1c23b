#include "pmixflow/vocab/info.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

std::string to_string(const Proc& p) { return p.nspace + "." + std::to_string(p.rank); }

bool InfoList::empty() const { return items.empty(); }
std::size_t InfoList::size() const { return items.size(); }
bool InfoList::has(std::string_view key) const { return find(key) != nullptr; }

const Value* InfoList::find(std::string_view key) const {
  for (const auto& item : items)
    if (item.key == key) return &item.value;
  return nullptr;
}

std::optional<std::uint64_t> InfoList::get_uint(std::string_view key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (auto p = std::get_if<std::uint64_t>(v)) return *p;
  if (auto p = std::get_if<std::uint32_t>(v)) return *p;
  if (auto p = std::get_if<std::int32_t>(v); p && *p >= 0) return static_cast<std::uint64_t>(*p);
  return std::nullopt;
}

bool InfoList::flag(std::string_view key) const {
  const Value* v = find(key);
  if (!v) return false;
  if (auto b = std::get_if<bool>(v)) return *b;
  return true;
}

InfoList& InfoList::add(std::string_view key, Value v) {
  items.push_back(InfoItem{std::string(key), std::move(v)});
  return *this;
}

InfoList& InfoList::set(std::string_view key, Value v) {
  for (auto& item : items)
    if (item.key == key) {
      item.value = std::move(v);
      return *this;
    }
  return add(key, std::move(v));
}

void InfoList::erase(std::string_view key) {
  std::erase_if(items, [&](const InfoItem& i) { return i.key == key; });
}

void apps_json_into(std::string& out, std::span<const App> apps) {
  out += '[';
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (i) out += ',';
    out += "{\"cmd\":";
    json_quote_into(out, apps[i].cmd);
    out += ",\"argv\":[";
    for (std::size_t j = 0; j < apps[i].argv.size(); ++j) {
      if (j) out += ',';
      json_quote_into(out, apps[i].argv[j]);
    }
    out += ']';
    if (!apps[i].env.empty()) {
      out += ",\"env\":[";
      for (std::size_t j = 0; j < apps[i].env.size(); ++j) {
        if (j) out += ',';
        json_quote_into(out, apps[i].env[j]);
      }
      out += ']';
    }
    out += ",\"maxprocs\":" + std::to_string(apps[i].maxprocs) + "}";
  }
  out += ']';
}

void value_json_into(std::string& out, const Value& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          out += x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          json_quote_into(out, x);
        else if constexpr (std::is_same_v<T, double>)
          json_number_into(out, x);
        else if constexpr (std::is_same_v<T, Status>)
          json_quote_into(out, status_name(x));
        else if constexpr (std::is_same_v<T, Directive>)
          json_quote_into(out, directive_name(x));
        else if constexpr (std::is_same_v<T, Proc>)
          json_quote_into(out, to_string(x));
        else if constexpr (std::is_same_v<T, InfoList>)
          info_json_into(out, x);
        else if constexpr (std::is_same_v<T, std::vector<App>>)
          apps_json_into(out, x);
        else
          out += std::to_string(x);
      },
      v);
}

void info_json_into(std::string& out, const InfoList& info) {
  // An array of pairs, not an object: keys may repeat and order matters.
  out += '[';
  for (std::size_t i = 0; i < info.items.size(); ++i) {
    if (i) out += ',';
    out += '[';
    json_quote_into(out, info.items[i].key);
    out += ',';
    value_json_into(out, info.items[i].value);
    out += ']';
  }
  out += ']';
}

std::string value_to_json(const Value& v) {
  std::string out;
  value_json_into(out, v);
  return out;
}

std::string to_json(const InfoList& info) {
  std::string out;
  info_json_into(out, info);
  return out;
}

}  // namespace pmixflow
