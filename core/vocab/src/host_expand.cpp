// Slurm's host-list expressions, read as Slurm's hostlist library reads them (scontrol show
// hostnames, slurm.conf NodeName, sbatch --nodelist): the one reader behind every list of hosts.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/host_ranges.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"

namespace pmixflow {
namespace {

struct HostRange {
  unsigned long long lo = 0, hi = 0;
  std::size_t width = 0;  // digits of the first bound as written: Slurm pads every number to it
};

// An entry cut into literal text and bracket groups: text[0] group[0] text[1] group[1] ... text[n].
struct HostPattern {
  std::vector<std::string_view> text;
  std::vector<std::vector<HostRange>> groups;
};

class HostReader {
 public:
  HostReader(std::string_view entry, std::string_view origin) : entry_(entry), origin_(origin) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(std::string(origin_), 0, cut_value(entry_), quote_value(entry_) + ": " + what);
  }

  unsigned long long number(std::string_view digits) const {
    if (digits.empty()) fail("an empty range in brackets (write n[1-3] or n[1,3])");
    if (digits.find_first_not_of("0123456789") != std::string_view::npos)
      fail(quote_value(digits) + " is not a number: a range holds decimal digits only (n[01-08])");
    const auto n = parse_whole<unsigned long long>(digits);
    if (!n) fail(quote_value(digits) + " is too large a number for a host range");
    return *n;
  }

  // One comma-separated item inside brackets: "7" or "01-08".
  HostRange range(std::string_view item) const {
    const auto dash = item.find('-');
    HostRange r;
    r.width = (dash == std::string_view::npos ? item : item.substr(0, dash)).size();
    r.lo = number(item.substr(0, dash));
    r.hi = dash == std::string_view::npos ? r.lo : number(item.substr(dash + 1));
    if (r.hi < r.lo)
      fail("the range " + quote_value(item) + " runs backwards: write the lower number first (" +
           quote_value(std::string(item.substr(dash + 1)) + "-" + std::string(item.substr(0, dash))) + ")");
    return r;
  }

  std::vector<HostRange> group(std::string_view inside) const {
    if (inside.empty()) fail("empty brackets '[]' name no host");
    std::vector<HostRange> out;
    for (std::size_t from = 0;;) {
      const auto comma = inside.find(',', from);
      out.push_back(range(inside.substr(from, comma == std::string_view::npos ? comma : comma - from)));
      if (comma == std::string_view::npos) return out;
      from = comma + 1;
    }
  }

  HostPattern pattern() const {
    HostPattern p;
    std::size_t from = 0;
    for (auto open = entry_.find_first_of("[]"); open != std::string_view::npos;
         open = entry_.find_first_of("[]", from)) {
      if (entry_[open] == ']') fail("']' without a '[' before it");
      const auto close = entry_.find_first_of("[]", open + 1);
      if (close == std::string_view::npos) fail("'[' is not closed by ']'");
      if (entry_[close] == '[') fail("brackets inside brackets are not a host range");
      p.text.push_back(entry_.substr(from, open - from));
      p.groups.push_back(group(entry_.substr(open + 1, close - open - 1)));
      from = close + 1;
    }
    p.text.push_back(entry_.substr(from));
    // As Slurm 22.05's hostlist reads it (scontrol show hostnames n[1-2]a: "Invalid hostlist").
    if (!p.groups.empty() && !p.text.back().empty())
      fail("text after the last ']' (" + quote_value(p.text.back()) +
           "): a host range ends with its brackets, as in Slurm");
    return p;
  }

 private:
  std::string_view entry_;
  std::string_view origin_;
};

std::string zero_padded(unsigned long long n, std::size_t width) {
  std::string s = std::to_string(n);
  return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

// The numbers of one group, in the order written (n[3,1] is n3 then n1, as Slurm keeps it).
std::vector<std::string> range_numbers(const std::vector<HostRange>& group) {
  std::vector<std::string> out;
  for (const HostRange& r : group)
    for (auto n = r.lo;; ++n) {
      out.push_back(zero_padded(n, r.width));
      if (n == r.hi) break;  // never past the end, even at the type's largest value
    }
  return out;
}

// How many names a pattern makes, counted before any is made; `limit` + 1 stands for "too many".
unsigned long long names_in(const HostPattern& p, unsigned long long limit) {
  unsigned long long total = 1;
  for (const auto& g : p.groups) {
    unsigned long long in_group = 0;
    for (const HostRange& r : g) in_group += r.hi - r.lo >= limit ? limit + 1 : r.hi - r.lo + 1;
    if (in_group > limit || total * in_group > limit) return limit + 1;
    total *= in_group;
  }
  return total;
}

// Every combination, the first group varying slowest, as Slurm writes rack[1-2]-n[1-2] out.
void multiply_out(const HostPattern& p, std::size_t g, const std::string& head,
                  const std::vector<std::vector<std::string>>& digits, std::vector<std::string>& out) {
  if (g == p.groups.size()) {
    out.push_back(head);
    return;
  }
  for (const auto& n : digits[g]) multiply_out(p, g + 1, head + n + std::string(p.text[g + 1]), digits, out);
}

}  // namespace

std::vector<std::string_view> split_host_list(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && depth > 0) --depth;
    if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(from, i - from));
      from = i + 1;
    }
  }
  out.push_back(text.substr(from));
  return out;
}

std::vector<std::string> expand_host_entry(std::string_view entry, std::string_view origin, std::size_t already) {
  const HostReader reader(entry, origin);
  const HostPattern p = reader.pattern();
  if (p.groups.empty()) return {std::string(entry)};
  const unsigned long long limit = kMaxListedHosts - std::min(already, kMaxListedHosts);
  if (names_in(p, limit) > limit)
    reader.fail("a list names at most " + std::to_string(kMaxListedHosts) + " hosts (a machine has fewer nodes)");
  std::vector<std::vector<std::string>> digits;
  for (const auto& g : p.groups) digits.push_back(range_numbers(g));
  std::vector<std::string> out;
  multiply_out(p, 0, std::string(p.text[0]), digits, out);
  return out;
}

std::vector<std::string> expand_host_names(std::string_view text, std::string_view origin) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (auto entry : split_host_list(text)) {
    // Spaces around an entry are not part of a name ("n01, n02"), as in every other host list.
    entry.remove_prefix(std::min(entry.find_first_not_of(" \t"), entry.size()));
    entry.remove_suffix(entry.size() - std::min(entry.find_last_not_of(" \t") + 1, entry.size()));
    if (entry.empty()) throw InputError(std::string(origin), 0, "", "an empty name in " + quote_value(text));
    auto names = expand_host_entry(entry, origin, out.size());
    out.insert(out.end(), std::make_move_iterator(names.begin()), std::make_move_iterator(names.end()));
  }
  return out;
}

}  // namespace pmixflow
