// An ordered list of (key, typed value), mapping 1:1 onto a pmix_info_t array: duplicate keys
// are allowed (PMIX_JOB_INFO_ARRAY appears once per job) and order is kept.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

// pmix_proc_t
struct Proc {
  std::string nspace;
  std::uint32_t rank = 0;
  auto operator<=>(const Proc&) const = default;
};
std::string to_string(const Proc& p);  // "nspace.rank"

// pmix_app_t, as far as the flow needs it: the command, its arguments and environment, and
// how many processes run it. What the processes then do is the running environment's
// business (roles/process_runner.hpp); a scenario that cannot say it with a real command says
// it in the environment (model/app_behaviour.hpp).
struct App {
  std::string cmd;
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=value, added to the processes' environment
  std::uint32_t maxprocs = 1;    // 0: as many as the slots it is given
  bool operator==(const App&) const = default;
};

struct InfoItem;
struct InfoList;

using Value = std::variant<bool, std::int32_t, std::uint32_t, std::uint64_t, double, std::string, Status, Directive,
                           Proc, InfoList, std::vector<App>>;

struct InfoList {
  std::vector<InfoItem> items;

  bool empty() const;
  std::size_t size() const;
  bool has(std::string_view key) const;
  const Value* find(std::string_view key) const;
  template <class T>
  const T* get(std::string_view key) const;
  // Reads an unsigned integer whatever integral type carries it.
  std::optional<std::uint64_t> get_uint(std::string_view key) const;
  // True for a present bool true (PMIx treats a key given without value as true too).
  bool flag(std::string_view key) const;
  InfoList& add(std::string_view key, Value v);
  InfoList& set(std::string_view key, Value v);  // replaces the first item with that key
  void erase(std::string_view key);
  bool operator==(const InfoList&) const;
};

struct InfoItem {
  std::string key;
  Value value;
  bool operator==(const InfoItem&) const = default;
};

inline bool InfoList::operator==(const InfoList& o) const { return items == o.items; }

template <class T>
const T* InfoList::get(std::string_view key) const {
  const Value* v = find(key);
  return v ? std::get_if<T>(v) : nullptr;
}

// PMIX_ALLOC_TIME (or `key`) in seconds: a v5 string `months:...:seconds` or a 4.2.2 integer.
// Throws InputError on a malformed string.
std::optional<double> read_alloc_time(const InfoList& info, std::string_view key = key::ALLOC_TIME);

// A compact human/JSON-friendly rendering for the event log: {"key":value,...}.
std::string to_json(const InfoList& info);
std::string value_to_json(const Value& v);
void info_json_into(std::string& out, const InfoList& info);
void value_json_into(std::string& out, const Value& v);
void apps_json_into(std::string& out, std::span<const App> apps);  // as value_to_json renders a Value holding them

}  // namespace pmixflow
