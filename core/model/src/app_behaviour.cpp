#include "pmixflow/model/app_behaviour.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
namespace {

template <class T>
bool parse_whole(const std::string& text, T& out) {
  const char* end = text.data() + text.size();
  T value{};
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p != end) return false;
  out = value;
  return true;
}

// Seconds as the environment carries them, read as every input's are (vocab/numbers): "inf",
// which from_chars takes, would make a job that never ends.
bool parse_seconds(const std::string& text, double& out) {
  return read_real(text, out, 0.0, kMaxSeconds) == NumberFault::None;
}

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::optional<double> sleep_seconds(const App& app) {
  double seconds = 0;
  if (app.cmd == "sleep" && !app.argv.empty() && parse_seconds(app.argv[0], seconds)) return seconds;
  return std::nullopt;
}

void set_var(App& app, std::string_view name, const std::string& value) {
  app.env.push_back(std::string(name) + "=" + value);
}

}  // namespace

const std::string* env_value(const App& app, std::string_view name) {
  for (auto it = app.env.rbegin(); it != app.env.rend(); ++it)
    if (it->size() > name.size() && name_of(*it) == name) return &*it;
  return nullptr;
}

std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> names;
  for (const auto entry : split_host_list(list)) {
    if (entry.empty()) continue;
    // The scenario reader refuses a malformed range; one that reaches here from elsewhere (an
    // app's own environment) stays as written, a name that matches no node.
    try {
      auto more = expand_host_entry(entry, kFailLaunchVar, names.size());
      names.insert(names.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    } catch (const InputError&) {
      names.emplace_back(entry);
    }
  }
  return names;
}

bool launch_fails_on(const AppBehaviour& b, std::string_view node) {
  if (!b.fail_launch) return false;
  return b.fail_launch_on.empty() ||
         std::find(b.fail_launch_on.begin(), b.fail_launch_on.end(), node) != b.fail_launch_on.end();
}

AppBehaviour app_behaviour(const App& app) {
  AppBehaviour b;
  auto value = [&](std::string_view name) -> std::optional<std::string> {
    const std::string* entry = env_value(app, name);
    if (!entry) return std::nullopt;
    return entry->substr(name.size() + 1);
  };
  if (auto s = sleep_seconds(app)) {
    b.runtime_s = *s;
  } else if (auto v = value(kRuntimeVar)) {
    double seconds = 0;
    if (parse_seconds(*v, seconds)) b.runtime_s = seconds;
  }
  if (auto v = value(kExitCodeVar)) parse_whole(*v, b.exit_code);
  if (auto v = value(kFailLaunchVar); v && *v != "0") {
    b.fail_launch = true;
    if (*v != "1") b.fail_launch_on = split_names(*v);
  }
  if (auto v = value(kExitSignalVar)) {
    int signal = 0;
    if (parse_whole(*v, signal) && ends_a_process(signal)) b.exit_signal = signal;
  }
  if (auto v = value(kTickVar)) {
    double seconds = 0;
    if (parse_seconds(*v, seconds) && seconds > 0) b.tick_s = seconds;
  }
  return b;
}

double end_time(const AppBehaviour& b, double start) {
  const double end = start + b.runtime_s;
  if (b.tick_s <= 0) return end;
  // A hair of slack: a start plus a run time that lands on a tick must not fall short of it.
  const double ticks = std::floor(end / b.tick_s + 1e-9);
  return std::max(start, ticks * b.tick_s);
}

void describe(App& app, const AppBehaviour& b) {
  std::erase_if(app.env, [](const std::string& e) {
    const auto n = name_of(e);
    return n == kRuntimeVar || n == kExitCodeVar || n == kFailLaunchVar || n == kTickVar || n == kExitSignalVar;
  });
  if (!sleep_seconds(app)) {
    std::string seconds;
    json_number_into(seconds, b.runtime_s);  // shortest text that reads back the same
    set_var(app, kRuntimeVar, seconds);
  }
  if (b.exit_code != 0) set_var(app, kExitCodeVar, std::to_string(b.exit_code));
  if (b.exit_signal != 0) set_var(app, kExitSignalVar, std::to_string(b.exit_signal));
  if (b.fail_launch) {
    std::string nodes;
    for (const auto& n : b.fail_launch_on) nodes += (nodes.empty() ? "" : ",") + n;
    set_var(app, kFailLaunchVar, nodes.empty() ? std::string("1") : nodes);
  }
  if (b.tick_s > 0) {
    std::string seconds;
    json_number_into(seconds, b.tick_s);
    set_var(app, kTickVar, seconds);
  }
}

}  // namespace pmixflow
