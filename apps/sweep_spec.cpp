#include "sweep_spec.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "pmixflow/policies/policy.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/trim.hpp"

namespace pmixflow::cli {
namespace {

std::string trimmed(std::string_view s) { return std::string(trim(s)); }

namespace fs = std::filesystem;

// A study of more runs than this is a typo in a range, not a study.
constexpr std::uint64_t kMaxSeeds = 100000;

// The options a sweep sets itself for every run, which the spec may not set.
const std::set<std::string>& sweep_owned_options() {
  static const std::set<std::string> owned{"--trace",  "--policy",   "--seed", "--out",
                                           "--events", "--scenario", "--quiet"};
  return owned;
}

struct Where {
  const std::string& file;
  std::size_t line;
  const std::string& field;
  [[noreturn]] void fail(const std::string& what) const { throw InputError(file, line, field, what); }
};

// The values at the commas outside brackets, as a host list is split: a Slurm host list's own
// commas do not separate values (--host = n[01-02,05], n07 is two values).
std::vector<std::string> split_values(const std::string& text, const Where& at) {
  std::vector<std::string> values;
  for (const std::string_view entry : split_host_list(text)) {
    std::string value = trimmed(entry);
    if (value.empty()) at.fail("an empty value in '" + trimmed(text) + "' (values are separated by commas)");
    values.push_back(std::move(value));
  }
  return values;
}

std::uint64_t parse_seed(const std::string& text, const Where& at) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    at.fail("'" + text + "' is not a seed (a whole number from 0 to 18446744073709551615, or a range A..B)");
  return value;
}

// "1, 2, 5..7" -> 1 2 5 6 7.
std::vector<std::uint64_t> parse_seeds(const std::vector<std::string>& items, const Where& at) {
  std::vector<std::uint64_t> seeds;
  for (const auto& item : items) {
    const auto dots = item.find("..");
    if (dots == std::string::npos) {
      seeds.push_back(parse_seed(item, at));
      continue;
    }
    const std::uint64_t lo = parse_seed(trimmed(item.substr(0, dots)), at);
    const std::uint64_t hi = parse_seed(trimmed(item.substr(dots + 2)), at);
    if (hi < lo) at.fail("the range '" + item + "' is empty (its end is below its start)");
    if (hi - lo >= kMaxSeeds || seeds.size() + (hi - lo) >= kMaxSeeds)
      at.fail("more than " + std::to_string(kMaxSeeds) + " seeds");
    for (std::uint64_t s = lo;; ++s) {
      seeds.push_back(s);
      if (s == hi) break;
    }
  }
  std::set<std::uint64_t> seen;
  for (auto s : seeds)
    if (!seen.insert(s).second) at.fail("the seed " + std::to_string(s) + " is listed twice");
  return seeds;
}

void no_repeats(const std::vector<std::string>& values, const Where& at) {
  std::set<std::string> seen;
  for (const auto& v : values)
    if (!seen.insert(v).second) at.fail("'" + v + "' is listed twice");
}

bool is_library(const std::string& policy) { return policy.find('/') != std::string::npos || policy.ends_with(".so"); }

class SpecReader {
 public:
  SpecReader(const fs::path& file, const std::vector<std::string>& sim_options)
      : name_(file.string()), sim_options_(sim_options) {
    spec_.file = fs::absolute(file);
  }

  SweepSpec read() {
    std::ifstream in(spec_.file);
    if (!in) throw InputError(name_, 0, "", "cannot read the sweep spec");
    std::string text;
    for (std::size_t line = 1; std::getline(in, text); ++line) read_line(trimmed(text), line);
    require(!spec_.policies.empty(), "policies", "fcfs, easy");
    require(!spec_.traces.empty() || !spec_.workloads.empty(), "traces", "traces/golden.swf");
    require(!spec_.seeds.empty(), "seeds", "1..3");
    return std::move(spec_);
  }

 private:
  void require(bool present, const std::string& key, const std::string& example) const {
    if (!present)
      throw InputError(name_, 0, key, "missing: every sweep names it (e.g. '" + key + " = " + example + "')");
  }

  void read_line(const std::string& text, std::size_t line) {
    if (text.empty() || text[0] == '#') return;
    const auto eq = text.find('=');
    const std::string key = trimmed(text.substr(0, eq));
    const Where at{name_, line, key};
    if (key.empty()) at.fail("a line is 'key = value, value, ...' (no key before '=')");
    if (!keys_.insert(key).second) at.fail("given twice (list every value on one line)");
    if (key.rfind("--", 0) == 0) return read_option(key, eq == std::string::npos ? "" : text.substr(eq + 1), at);
    if (eq == std::string::npos) at.fail("a line is 'key = value, value, ...' (no '=')");
    const std::string value = text.substr(eq + 1);
    if (key == "policies") {
      spec_.policies = split_values(value, at);
      no_repeats(spec_.policies, at);
      for (const auto& policy : spec_.policies) check_policy(policy, at);
    } else if (key == "traces") {
      spec_.traces = split_values(value, at);
      no_repeats(spec_.traces, at);
      for (const auto& trace : spec_.traces) check_file(trace, "trace", at);
    } else if (key == "workloads") {
      read_workloads(value, at);
    } else if (key == "seeds") {
      spec_.seeds = parse_seeds(split_values(value, at), at);
    } else if (key == "out") {
      const std::string out = trimmed(value);
      if (out.empty()) at.fail("empty: name the sweep's output directory");
      spec_.out = (spec_.file.parent_path() / out).lexically_normal();
    } else {
      at.fail("unknown key" + did_you_mean(key, {"policies", "traces", "workloads", "seeds", "out"}) +
              " (the keys are policies, traces, workloads, seeds, out, and options of pmixflow sim such as --nodes)");
    }
  }

  // `workloads = jobs=200 nodes=8, jobs=500 nodes=16 load=0.9`: a workload per comma.
  void read_workloads(const std::string& value, const Where& at) {
    const std::vector<std::string> texts = split_values(value, at);
    no_repeats(texts, at);
    for (const auto& text : texts) {
      SweepWorkload workload{text, {}, false};
      workload.shape = parse_workload_shape(text, name_, at.line, &workload.seeded);
      spec_.workloads.push_back(std::move(workload));
    }
  }

  // Refused here, with its line, rather than in every run that would use it.
  void check_file(const std::string& path, const std::string& what, const Where& at) const {
    std::error_code ec;
    if (!fs::is_regular_file(spec_.file.parent_path() / path, ec))
      at.fail("no " + what + " '" + path + "' (paths are relative to the spec's directory, " +
              spec_.file.parent_path().string() + ")");
  }
  void check_policy(const std::string& policy, const Where& at) const {
    if (is_library(policy)) return check_file(policy, "policy library", at);
    if (!make_builtin_policy(policy)) at.fail(unknown_policy(policy));
  }

  // `--nodes = 8, 16` varies an option; `--exclusive-nodes` alone sets a flag in every run.
  void read_option(const std::string& key, const std::string& value, const Where& at) {
    if (sweep_owned_options().count(key))
      at.fail("set by the sweep for each run (use the policies, traces and seeds keys, and sweep's --out)");
    if (std::find(sim_options_.begin(), sim_options_.end(), key) == sim_options_.end())
      at.fail("not an option of pmixflow sim" + did_you_mean(key, sim_options_) + " (see pmixflow sim --help)");
    SweepOption option{key, {}};
    if (!trimmed(value).empty()) {
      option.values = split_values(value, at);
      no_repeats(option.values, at);
    }
    spec_.options.push_back(std::move(option));
  }

  std::string name_;
  const std::vector<std::string>& sim_options_;
  SweepSpec spec_;
  std::set<std::string> keys_;
};

// A parameter as a piece of a directory name: what a file name may hold on any system.
std::string id_piece(const std::string& value) {
  std::string out;
  for (char c : value) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '-' || c == '+' || c == '=';
    out += plain ? c : '_';
  }
  return out;
}

// A trace's or a policy library's short name: its file name without .gz, .swf or .so.
std::string short_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* ext : {".gz", ".swf", ".so"})
    if (name.size() > std::string(ext).size() && name.ends_with(ext))
      name.resize(name.size() - std::string(ext).size());
  return name;
}

}  // namespace

SweepSpec read_sweep_spec(const std::filesystem::path& file, const std::vector<std::string>& sim_options) {
  return SpecReader(file, sim_options).read();
}

namespace {

// The runs of one (policy, trace, seed), multiplied by every option's values.
void expand_options(const SweepSpec& spec, SweepRun run, std::size_t next, std::vector<SweepRun>& out) {
  if (next == spec.options.size()) {
    out.push_back(std::move(run));
    return;
  }
  const SweepOption& option = spec.options[next];
  const std::string column = option.name.substr(2);
  if (option.values.empty()) {  // a flag, in every run
    run.params.emplace_back(column, "on");
    run.sim_args.push_back(option.name);
    return expand_options(spec, std::move(run), next + 1, out);
  }
  for (const auto& value : option.values) {
    SweepRun more = run;
    more.params.emplace_back(column, value);
    more.sim_args.insert(more.sim_args.end(), {option.name, value});
    // Only what varies names a run: a fixed option is the same for all of them.
    if (option.values.size() > 1) more.id += "__" + id_piece(column + "=" + value);
    expand_options(spec, std::move(more), next + 1, out);
  }
}

// A run's source of jobs, a trace or a generated workload, for one seed.
struct Source {
  std::string id;     // its piece of the run's id
  std::string param;  // its trace column
  std::vector<std::string> args;
  std::optional<WorkloadShape> workload;
};

std::vector<Source> sources(const SweepSpec& spec, std::uint64_t seed) {
  std::vector<Source> out;
  for (const auto& trace : spec.traces)
    out.push_back({id_piece(short_name(trace)),
                   trace,
                   {"--trace", (spec.file.parent_path() / trace).lexically_normal().string()},
                   std::nullopt});
  for (const auto& w : spec.workloads) {
    std::string id = "gen";
    std::istringstream words(w.text);
    for (std::string word; words >> word;) id += "-" + id_piece(word);
    WorkloadShape shape = w.shape;
    if (!w.seeded) shape.seed = seed;
    out.push_back({id, "generated: " + w.text, {}, shape});
  }
  return out;
}

}  // namespace

std::vector<SweepRun> expand_runs(const SweepSpec& spec) {
  const fs::path dir = spec.file.parent_path();
  std::vector<SweepRun> runs;
  const std::size_t count = spec.traces.size() + spec.workloads.size();
  for (const auto& policy : spec.policies)
    for (std::size_t source = 0; source < count; ++source)
      for (const auto seed : spec.seeds) {
        Source from = sources(spec, seed)[source];
        SweepRun run;
        run.id = id_piece(is_library(policy) ? short_name(policy) : policy) + "__" + from.id + "__seed" +
                 std::to_string(seed);
        run.params = {{"policy", policy}, {"trace", from.param}, {"seed", std::to_string(seed)}};
        const std::string policy_arg = is_library(policy) ? (dir / policy).lexically_normal().string() : policy;
        run.sim_args = from.args;
        run.sim_args.insert(run.sim_args.end(), {"--policy", policy_arg, "--seed", std::to_string(seed)});
        run.workload = from.workload;
        expand_options(spec, std::move(run), 0, runs);
      }
  std::set<std::string> ids;
  for (const auto& run : runs)
    if (!ids.insert(run.id).second)
      throw InputError(spec.file.string(), 0, "traces",
                       "two runs would share the directory runs/" + run.id +
                           " (two traces or policy libraries with the same file name): rename one");
  return runs;
}

}  // namespace pmixflow::cli
