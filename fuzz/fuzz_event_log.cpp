// Event logs (events.jsonl) as the reader, the report (`pmixflow report`) and the invariant
// checker read them: every value is read through its accessor, as a consumer would.
#include <variant>

#include "fuzz_support.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/results/invariants.hpp"
#include "pmixflow/results/report.hpp"

namespace {

using namespace pmixflow;

void read_all(const std::string& path, log::ReadOptions options) {
  fuzz::refused_or_ok([&] {
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
    return seen;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_file("events.jsonl", fuzz::as_text(data, size));
  read_all(path, {});
  read_all(path, log::ReadOptions{.strict = true});
  read_all(path, log::ReadOptions{.kinds = log::kind_set({log::EventKind::AllocGrant, log::EventKind::JobStart})});
  fuzz::refused_or_ok([&] { report_from_log(path, ReportOptions{.partial = true}); });
  fuzz::refused_or_ok([&] { check_invariants(path); });
  return 0;
}
