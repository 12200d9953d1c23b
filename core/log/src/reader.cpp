#include "pmixflow/log/reader.hpp"

#include "line_source.hpp"
#include "log_file.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "pmixflow/log/json_scan.hpp"
#include "pmixflow/vocab/input_file.hpp"

namespace pmixflow::log {
namespace {

using detail::JsonType;
using detail::Member;

std::string type_expected(FieldType t) {
  switch (t) {
    case FieldType::String: return "a string";
    case FieldType::UInt: return "a whole number";
    case FieldType::Int: return "an integer";
    case FieldType::Number: return "a number";
    case FieldType::Bool: return "true or false";
    case FieldType::Status: return "a PMIx status name";
    case FieldType::Info: return "a PMIx info list (an array of [key, value] pairs)";
    case FieldType::Apps: return "an array of apps";
    case FieldType::Json: return "an array or an object";
  }
  return "?";
}

template <class T>
bool whole(std::string_view raw, T& out) {
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), out);
  return ec == std::errc() && end == raw.data() + raw.size();
}

// The value of a member as the field's type wants it; nothing when it does not fit.
std::optional<FieldValue> typed(const Member& m, FieldType t) {
  switch (t) {
    case FieldType::String:
      if (m.type == JsonType::String) return FieldValue(m.text);
      return std::nullopt;
    case FieldType::UInt: {
      std::uint64_t v = 0;
      if (m.type == JsonType::Number && whole(m.raw, v)) return FieldValue(v);
      return std::nullopt;
    }
    case FieldType::Int: {
      std::int64_t v = 0;
      if (m.type == JsonType::Number && whole(m.raw, v)) return FieldValue(v);
      return std::nullopt;
    }
    case FieldType::Number: {
      if (m.type == JsonType::Null) return FieldValue(std::nan(""));
      double v = 0;
      if (m.type == JsonType::Number && whole(m.raw, v)) return FieldValue(v);
      return std::nullopt;
    }
    case FieldType::Bool:
      if (m.type == JsonType::True || m.type == JsonType::False) return FieldValue(m.type == JsonType::True);
      return std::nullopt;
    case FieldType::Status:
      if (m.type != JsonType::String) return std::nullopt;
      if (auto s = parse_status(m.text)) return FieldValue(*s);
      return std::nullopt;
    case FieldType::Info:
    case FieldType::Apps:
      if (m.type == JsonType::Array) return FieldValue(JsonText{m.raw});
      return std::nullopt;
    case FieldType::Json:
      if (m.type == JsonType::Array || m.type == JsonType::Object) return FieldValue(JsonText{m.raw});
      return std::nullopt;
  }
  return std::nullopt;
}

const Member* member(const std::vector<Member>& members, std::string_view key) {
  for (const auto& m : members)
    if (m.key == key) return &m;
  return nullptr;
}

std::optional<std::uint64_t> id_of(const std::vector<Member>& members) {
  std::uint64_t id = 0;
  const Member* m = member(members, "id");
  if (m && m->type == JsonType::Number && whole(m->raw, id)) return id;
  return std::nullopt;
}

// What follows member `m` in `line`, up to the object's closing brace: a message's content
// after its `to` or `from`.
std::string_view after(std::string_view line, const Member& m) {
  const auto from = static_cast<std::size_t>(m.raw.data() + m.raw.size() - line.data());
  const std::size_t close = line.rfind('}');
  return close != std::string_view::npos && close > from ? line.substr(from, close - from) : std::string_view();
}

// A short recv line made whole: its own envelope and `from`, then its send's content.
void rebuild_recv(std::string& out, std::string_view t, std::string_view who, std::string_view from,
                  std::string_view tail) {
  out.assign("{\"t\":");
  out.append(t).append(",\"ev\":\"recv\",\"who\":").append(who);
  out.append(",\"from\":").append(from).append(tail).append("}");
}

}  // namespace

std::optional<std::string> whole_recv(std::string_view recv, std::string_view send) {
  std::vector<Member> r, s;
  std::deque<std::string> storage;
  if (detail::scan_object(recv, r, storage)) return std::nullopt;
  if (member(r, "msg")) return std::string(recv);
  const Member* t = member(r, "t");
  const Member* who = member(r, "who");
  const Member* from = member(r, "from");
  if (!t || !who || !from || detail::scan_object(send, s, storage)) return std::nullopt;
  const Member* to = member(s, "to");
  if (!to) return std::nullopt;
  std::string out;
  rebuild_recv(out, t->raw, who->raw, from->raw, after(send, *to));
  return out;
}

LogReader::LogReader(std::string path, ReadOptions options) : path_(std::move(path)), options_(options) {
  if (path_ == "-") {
    if (options_.follow) throw InputError(path_, 0, "", "standard input cannot be followed: give the log's path");
    io_.file = stdin;
  } else {
    require_regular_file(path_, "an event log");
    const OpenedLog opened = open_log_file(path_);
    io_.file = opened.file;
    if (!io_.file) throw InputError(path_, 0, "", std::string("cannot read the event log: ") + std::strerror(errno));
    io_.owns_file = true;
    if (opened.compressed && options_.follow)
      throw InputError(path_, 0, "", "a compressed log cannot be followed: write it uncompressed to follow it");
  }
  lines_ = std::make_unique<LineSource>(io_.file, kMaxLineBytes);
  if (!read_line()) {
    if (problem_) throw *problem_;
    if (waiting_) throw LogNotStarted(path_, 1, "", "the header line is not written yet");
    throw InputError(path_, 0, "", "empty file: an event log starts with its header line");
  }
  header_ = parse_header(text_, path_);
  good_line_ = 1;
}

LogReader::~LogReader() = default;

LogReader::Handles::~Handles() {
  if (owns_file) std::fclose(file);
}

bool LogReader::read_line() {
  const std::uint64_t start = lines_->consumed();
  std::string_view got;
  errno = 0;
  switch (lines_->next(got)) {
    case LineSource::Got::Failed: return stop("", std::string("read failed: ") + std::strerror(errno));
    case LineSource::Got::End:
    case LineSource::Got::Partial:
      // A last line without its newline is still being written when the log is followed.
      waiting_ = options_.follow;
      if (waiting_ || got.empty()) return false;
      ++line_;
      text_ = got;
      cut_ = !complete_;  // after the closing line, no cut but garbage
      return stop("", "the line is cut short (no newline): the log was cut while this line was being written");
    case LineSource::Got::TooLong:
      ++line_;
      return stop("", "longer than " + std::to_string(kMaxLineBytes >> 20) +
                          " MiB, the longest line a log may hold: a line that never ends, or not a log pmixflow "
                          "wrote");
    case LineSource::Got::Line: break;
  }
  offset_ = start;
  ++line_;
  text_ = got;
  // Strict JSON has no NUL outside a string either; said as what it is, wherever it stands.
  if (const auto nul = text_.find('\0'); nul != std::string_view::npos)
    return stop("", "a NUL byte at column " + std::to_string(nul + 1) + ": a log line is text");
  return true;
}

bool LogReader::stop(const std::string& field, const std::string& what) {
  if (!problem_) problem_ = InputError(path_, line_, field, what);
  done_ = true;
  complete_ = false;  // whatever came before: a log with a line refused is not whole
  return false;
}

const EventView* LogReader::next() {
  waiting_ = false;
  while (!done_) {
    if (!read_line()) {
      if (waiting_) return nullptr;
      done_ = true;
      if (!complete_ && !problem_) {
        cut_ = true;
        problem_ = InputError(path_, line_, "",
                              "the log has no closing line (log.end): the run was stopped or is still going; the last "
                              "line read whole is " +
                                  std::to_string(good_line_));
      }
      return nullptr;
    }
    if (text_.empty()) {
      stop("", "an empty line");
      return nullptr;
    }
    if (complete_) {
      stop("", "lines after the closing line");
      return nullptr;
    }
    if (!parse(text_)) {
      if (done_) return nullptr;
      good_line_ = line_;
      continue;  // a kind this pmixflow does not know, passed over
    }
    good_line_ = line_;
    if (view_.kind == EventKind::LogEnd) complete_ = true;
    if (!wanted(view_.kind) && view_.kind != EventKind::LogEnd) continue;
    return &view_;
  }
  return nullptr;
}

void LogReader::check_whole(bool partial, std::string_view hint) const {
  if (complete_ || !problem_ || (partial && cut_)) return;
  if (!cut_) throw *problem_;
  const InputError& p = *problem_;
  throw InputError(p.file(), p.line(), p.field(),
                   p.detail() + " (last good line " + std::to_string(good_line_) + ")" +
                       (hint.empty() ? std::string() : "; " + std::string(hint)));
}

bool LogReader::parse(std::string_view line) {
  decoded_.clear();
  if (line.data() != rebuilt_.data()) send_line_.reset();
  auto& members = members_;
  if (auto err = detail::scan_object(line, members, decoded_)) return stop(err->key, err->what);
  const Member* t = nullptr;
  const Member* ev = nullptr;
  const Member* who = nullptr;
  for (const auto& m : members) {
    if (m.key == "t")
      t = &m;
    else if (m.key == "ev")
      ev = &m;
    else if (m.key == "who")
      who = &m;
  }
  if (!ev || ev->type != JsonType::String) return stop("ev", "every event names its kind in \"ev\"");
  const auto kind = find_kind(ev->text);
  if (!kind) {
    if (options_.strict) return stop("ev", "unknown kind \"" + std::string(ev->text) + "\" (not in the catalogue)");
    ++unknown_kinds_;
    return false;
  }
  double when = 0;
  if (!t || t->type != JsonType::Number || !whole(t->raw, when))
    return stop("t", "expects the time in seconds" + (t ? ", got " + std::string(t->raw) : std::string()));
  if (!(when >= 0 && when <= kMaxEventTime))
    return stop("t", "a time of " + std::string(t->raw) + " s: an event's time is from 0 to 1e12 s");
  if (!who || who->type != JsonType::String) return stop("who", "expects the party's name");
  if (*kind == EventKind::Recv && header_.version >= 3 && line.data() != rebuilt_.data()) {
    switch (recv_line(line, *t, *who)) {
      case Hop::Whole: break;
      case Hop::Failed: return false;
      case Hop::Rebuilt:
        if (!parse(rebuilt_)) return false;
        text_ = rebuilt_;
        return true;
    }
  }
  if (!check_fields(*kind, when, t, who)) return false;
  if (*kind == EventKind::Send && header_.version >= 3) remember_send(line, *who);
  return true;
}

bool LogReader::check_fields(EventKind kind, double when, const Member* t, const Member* who) {
  const EventSpec& s = spec(kind);
  values_.fill(std::monostate{});
  for (const auto& m : members_) {
    if (&m == t || &m == who || m.key == "ev") continue;
    const auto field = find_field(m.key);
    const auto at = field ? position(kind, *field) : std::nullopt;
    if (!at) {
      if (options_.strict)
        return stop(std::string(m.key), "not a field of " + std::string(s.name) + " (not in the catalogue)");
      continue;
    }
    auto v = typed(m, type_of(*field));
    if (!v)
      return stop(std::string(m.key), "expects " + type_expected(type_of(*field)) + ", got " + std::string(m.raw));
    values_[*at] = *v;
  }
  for (std::size_t i = 0; i < s.fields.size(); ++i)
    if (s.fields[i].required && std::holds_alternative<std::monostate>(values_[i]))
      return stop(std::string(spec(s.fields[i].field).key), "missing: " + std::string(s.name) + " always has it");
  view_ = EventView{when, who->text, kind, {values_.data(), s.fields.size()}};
  return true;
}

LogReader::Hop LogReader::recv_line(std::string_view line, const Member& t, const Member& who) {
  const Member* from = member(members_, "from");
  if (!from || from->type != JsonType::String) return Hop::Whole;  // refused as a recv without its `from`
  const auto id = id_of(members_);
  if (member(members_, "msg")) {
    // Whole: the writer forgot its send as the reader must, to keep the same sends in mind.
    in_flight_.received(from->text, who.text, id, after(line, *from));
    return Hop::Whole;
  }
  auto send = in_flight_.take_oldest(from->text, who.text, id);
  if (!send) {
    stop("msg", "a short recv (no msg) with no send from " + std::string(from->raw) + " to " + std::string(who.raw) +
                    (id ? " of id " + std::to_string(*id) : std::string()) +
                    " above it that it was not received for yet: not a log pmixflow wrote");
    return Hop::Failed;
  }
  rebuild_recv(rebuilt_, t.raw, who.raw, from->raw, send->tail);
  send_line_ = send->line;
  return Hop::Rebuilt;
}

void LogReader::remember_send(std::string_view line, const Member& who) {
  if (const Member* to = member(members_, "to"))
    in_flight_.sent(who.text, to->text, id_of(members_), after(line, *to), line_);
}

}  // namespace pmixflow::log
