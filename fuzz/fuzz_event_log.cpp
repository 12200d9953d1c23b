// Event logs (events.jsonl) as the reader, the report (`pmixflow report`) and the invariant
// checker read them: every value is read through its accessor, as a consumer would, and a
// reader asking for a few kinds ends where one asking for all of them does.
#include <variant>

#include "fuzz_support.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/results/invariants.hpp"
#include "pmixflow/results/report.hpp"

namespace {

using namespace pmixflow;

// How a reading ended: whole, or the problem that stopped it, or the refusal of its header.
std::string read_all(const std::string& path, log::ReadOptions options) {
  std::string verdict;
  fuzz::refused_or_ok([&] {
    verdict = "refused at the header";
    log::LogReader reader(path, options);
    std::size_t seen = 0;
    while (const log::EventView* e = reader.next()) {
      for (const log::FieldUse& use : log::spec(e->kind).fields) {
        const log::Field f = use.field;
        seen += e->has(f) + e->str(f).has_value() + e->uint(f).has_value() + e->sint(f).has_value() +
                e->num(f).has_value() + e->flag(f).has_value() + e->status(f).has_value() + e->json(f).has_value();
      }
      seen += reader.text().size();
    }
    // A reading ends whole, or with a problem that says why not.
    if (!reader.complete() && !reader.problem()) std::abort();
    verdict = reader.problem() ? reader.problem()->what() : "whole";
    return seen;
  });
  return verdict;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_file("events.jsonl", fuzz::as_text(data, size));
  const std::string all = read_all(path, {});
  read_all(path, log::ReadOptions{.strict = true});
  // Every reader refuses the same lines, whatever kinds it asks for (report asks for fewer than
  // the viewer): one verdict.
  const std::string some =
      read_all(path, log::ReadOptions{.kinds = log::kind_set({log::EventKind::AllocGrant, log::EventKind::JobStart})});
  if (some != all) std::abort();
  fuzz::refused_or_ok([&] { report_from_log(path, ReportOptions{.partial = true}); });
  fuzz::refused_or_ok([&] { check_invariants(path); });
  return 0;
}
