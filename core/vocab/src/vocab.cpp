#include "pmixflow/vocab/vocab.hpp"

#include <array>
#include <utility>

#include "pmixflow/vocab/numbers.hpp"

namespace pmixflow {
namespace {

constexpr std::array<std::pair<Directive, std::string_view>, 7> kDirectives{{
    {Directive::New, "PMIX_ALLOC_NEW"},
    {Directive::Extend, "PMIX_ALLOC_EXTEND"},
    {Directive::Release, "PMIX_ALLOC_RELEASE"},
    {Directive::Reaquire, "PMIX_ALLOC_REAQUIRE"},
    {Directive::ReqCancel, "PMIX_ALLOC_REQ_CANCEL"},
    {Directive::Activate, "PMIX_ALLOC_ACTIVATE"},
    {Directive::External, "PMIX_ALLOC_EXTERNAL"},
}};

struct SessionOpName {
  SessionOp op;
  std::string_view name;
  std::string_view key;
};
constexpr std::array<SessionOpName, 10> kSessionOps{{
    {SessionOp::Instantiate, "PMIX_SESSION_INSTANTIATE", key::SESSION_INSTANTIATE},
    {SessionOp::Pause, "PMIX_SESSION_PAUSE", key::SESSION_PAUSE},
    {SessionOp::Resume, "PMIX_SESSION_RESUME", key::SESSION_RESUME},
    {SessionOp::Preempt, "PMIX_SESSION_PREEMPT", key::SESSION_PREEMPT},
    {SessionOp::Restore, "PMIX_SESSION_RESTORE", key::SESSION_RESTORE},
    {SessionOp::Signal, "PMIX_SESSION_SIGNAL", key::SESSION_SIGNAL},
    {SessionOp::Terminate, "PMIX_SESSION_TERMINATE", key::SESSION_TERMINATE},
    {SessionOp::Extend, "PMIX_SESSION_EXTEND", key::SESSION_EXTEND},
    {SessionOp::Sep, "PMIX_SESSION_SEP", key::SESSION_SEP},
    {SessionOp::Complete, "PMIX_SESSION_COMPLETE", key::SESSION_COMPLETE},
}};

// Accepts the full upstream name or the same without its prefix ("NEW" for "PMIX_ALLOC_NEW").
bool name_matches(std::string_view full, std::string_view prefix, std::string_view text) {
  if (text == full) return true;
  return full.substr(0, prefix.size()) == prefix && full.substr(prefix.size()) == text;
}

}  // namespace

std::string_view directive_name(Directive d) {
  for (const auto& [dir, name] : kDirectives)
    if (dir == d) return name;
  return "PMIX_ALLOC_UNKNOWN";
}

std::optional<Directive> parse_directive(std::string_view text) {
  for (const auto& [dir, name] : kDirectives)
    if (name_matches(name, "PMIX_ALLOC_", text)) return dir;
  return std::nullopt;
}

std::string_view session_op_key(SessionOp op) { return kSessionOps[static_cast<std::size_t>(op)].key; }
std::string_view session_op_name(SessionOp op) { return kSessionOps[static_cast<std::size_t>(op)].name; }

std::optional<SessionOp> parse_session_op(std::string_view text) {
  for (const auto& entry : kSessionOps)
    if (name_matches(entry.name, "PMIX_SESSION_", text) || entry.key == text) return entry.op;
  return std::nullopt;
}

}  // namespace pmixflow
