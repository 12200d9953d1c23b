// The event logs of two runs, read with the LogReader: the header's inputs, then line by line
// to the first event that differs, and the field that differs in it.
#include <algorithm>

#include "diff_internal.hpp"
#include "pmixflow/log/level.hpp"
#include "pmixflow/log/reader.hpp"
#include "pmixflow/vocab/errors.hpp"

namespace pmixflow::diff_detail {
namespace {

std::optional<std::string> member_text(const ojson& object, const std::string& key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  return it->dump();
}

// The keys of `a` in order, then those only in `b` in theirs.
std::vector<std::string> key_union(const ojson& a, const ojson& b) {
  std::vector<std::string> keys;
  if (a.is_object())
    for (const auto& item : a.items()) keys.push_back(item.key());
  if (b.is_object())
    for (const auto& item : b.items())
      if (!a.is_object() || !a.contains(item.key())) keys.push_back(item.key());
  return keys;
}

std::vector<ValueDiff> differing_members(const ojson& a, const ojson& b) {
  std::vector<ValueDiff> out;
  for (const auto& key : key_union(a, b)) {
    auto va = member_text(a, key), vb = member_text(b, key);
    if (va != vb) out.push_back(ValueDiff{key, std::move(va), std::move(vb)});
  }
  return out;
}

void compare_headers(const log::LogHeader& a, const log::LogHeader& b, EventsDiff& d) {
  const ojson ha{{"env", a.env}, {"seed", a.seed}}, hb{{"env", b.env}, {"seed", b.seed}};
  d.header = differing_members(ha, hb);
  d.inputs = differing_members(ojson(a.inputs), ojson(b.inputs));
}

// Field by field, in order: the first position where the keys or the values differ.
void name_first_field(EventDivergence& d) {
  if (!d.a || !d.b) return;
  const ojson a = ojson::parse(*d.a, nullptr, false);
  const ojson b = ojson::parse(*d.b, nullptr, false);
  if (a.is_discarded() || b.is_discarded() || !a.is_object() || !b.is_object()) return;
  auto ia = a.begin(), ib = b.begin();
  for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
    if (ia.key() != ib.key() || ia.value() != ib.value()) {
      d.field = ia.key();
      d.field_a = ia.value().dump();
      d.field_b = member_text(b, ia.key());
      return;
    }
  }
  if (ia != a.end()) {
    d.field = ia.key();
    d.field_a = ia.value().dump();
  } else if (ib != b.end()) {
    d.field = ib.key();
    d.field_b = ib.value().dump();
  }
}

// Two closing lines say the same when they differ only in the run's wall-clock time (and in
// the count of events, between logs kept at different levels).
bool same_closing(const log::EventView& a, const log::EventView& b, bool mixed_levels, double tolerance_s) {
  if (a.kind != log::EventKind::LogEnd || b.kind != log::EventKind::LogEnd) return false;
  if (!within_time(a.t, b.t, tolerance_s) || a.str(log::Field::end) != b.str(log::Field::end) ||
      (!mixed_levels && a.uint(log::Field::events) != b.uint(log::Field::events)))
    return false;
  auto stats = [](const log::EventView& e) {
    auto j = ojson::parse(e.json(log::Field::stats).value_or("{}"), nullptr, false);
    if (j.is_object()) j.erase("wall_s");
    return j;
  };
  const ojson sa = stats(a), sb = stats(b);
  if (sa == sb) return true;
  // The simulated time the run ended is a time like any other.
  if (!sa.is_object() || !sb.is_object() || !sa.contains("sim_time_s") || !sb.contains("sim_time_s")) return false;
  const ojson ta = sa["sim_time_s"], tb = sb["sim_time_s"];
  if (!ta.is_number() || !tb.is_number() || !within_time(ta.get<double>(), tb.get<double>(), tolerance_s)) return false;
  ojson ra = sa, rb = sb;
  ra.erase("sim_time_s");
  rb.erase("sim_time_s");
  return ra == rb;
}

// A log read a line ahead: the line in hand stays readable while the other log is read on.
struct Cursor {
  explicit Cursor(log::LogReader& r) : reader(r) {}
  log::LogReader& reader;
  const log::EventView* event = nullptr;
  std::string text;
  std::uint64_t line = 0;

  void advance() {
    event = reader.next();
    if (!event) return;
    text = std::string(reader.text());
    line = reader.line();
  }
  bool in_window(double end) const { return event && event->kind != log::EventKind::LogEnd && event->t <= end; }
};

// From two lines that differ, the events of both logs up to a tolerance past the earlier, taken
// as sets: equal, both cursors are past them (and `lines` counts them); else the logs differ.
// The window grows by the tolerance a few times, so that a pair astride its end is still matched.
bool windows_match(Cursor& a, Cursor& b, double tolerance_s, std::uint64_t& lines) {
  if (!a.event || !b.event || a.event->kind == log::EventKind::LogEnd || b.event->kind == log::EventKind::LogEnd)
    return false;
  const double start = std::min(a.event->t, b.event->t);
  std::vector<std::string> wa, wb;
  for (int widths = 1; widths <= 4; ++widths) {
    const double end = start + widths * tolerance_s;
    for (; a.in_window(end); a.advance()) wa.push_back(a.text);
    for (; b.in_window(end); b.advance()) wb.push_back(b.text);
    if (same_window(wa, wb, tolerance_s)) {
      lines += wa.size();
      return true;
    }
  }
  return false;
}

void drain(log::LogReader& r) {
  while (r.next()) {
  }
}

// A log without its closing line is refused, unless the caller takes what is there; a bad line always.
void check_whole(const log::LogReader& r, const DiffOptions& options, std::vector<std::string>& notes) {
  r.check_whole(options.partial, "--partial compares what is there");
  if (r.complete() || !r.problem()) return;
  notes.push_back(r.path() + " is not whole: " + r.problem()->detail() + " (last good line " +
                  std::to_string(r.last_good_line()) + "); compared as far as it goes");
}

}  // namespace

EventsDiff diff_events(const std::string& path_a, const std::string& path_b, const DiffOptions& options,
                       std::vector<std::string>& notes) {
  EventsDiff d;
  d.compared = true;
  // A log kept with --events state has no hops: against one that has them, the events both
  // have are compared, and the note says so.
  log::LogReader ra(path_a), rb(path_b);
  const auto level = [](const log::LogReader& r) { return r.header().inputs.value("events", std::string("all")); };
  const std::string level_a = level(ra), level_b = level(rb);
  const bool mixed = level_a != level_b;
  if (mixed) {
    ra.only(log::kinds_at(log::Level::State));
    rb.only(log::kinds_at(log::Level::State));
  }
  compare_headers(ra.header(), rb.header(), d);
  if (ra.header().version != rb.header().version)
    notes.push_back("the logs are of versions " + std::to_string(ra.header().version) + " (A) and " +
                    std::to_string(rb.header().version) +
                    " (B): compared as read, each recv whole (version 3 writes a recv that carries what its send "
                    "did short)");
  if (mixed) {
    std::erase_if(d.inputs, [](const ValueDiff& v) { return v.name == "events"; });
    notes.push_back("the logs were kept at different levels (A " + level_a + ", B " + level_b +
                    "): compared without the messages' send and recv events");
  }
  const double tolerance = options.tolerance_s;
  Cursor ca(ra), cb(rb);
  ca.advance();
  cb.advance();
  while (ca.event || cb.event) {
    if (ca.event && cb.event) {
      const bool same = ca.text == cb.text || same_closing(*ca.event, *cb.event, mixed, tolerance);
      if (same || same_but_times(ca.text, cb.text, tolerance)) {
        if (!same) ++d.within_tolerance;
        ca.advance();
        cb.advance();
        continue;
      }
    }
    EventDivergence div;
    div.line = std::max(ca.line, cb.line);
    if (ca.event) div.a = ca.text;
    if (cb.event) div.b = cb.text;
    if (tolerance > 0 && windows_match(ca, cb, tolerance, d.within_tolerance)) continue;
    name_first_field(div);
    d.first = std::move(div);
    drain(ra);
    drain(rb);
    break;
  }
  check_whole(ra, options, notes);
  check_whole(rb, options, notes);
  d.lines_a = ra.line();
  d.lines_b = rb.line();
  d.identical = d.header.empty() && d.inputs.empty() && !d.first && d.within_tolerance == 0;
  return d;
}

}  // namespace pmixflow::diff_detail
