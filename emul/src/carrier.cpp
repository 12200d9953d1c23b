#include "pmixflow/emul/carrier.hpp"

#include <algorithm>
#include <stdexcept>

namespace pmixflow::emul {
namespace {

// Header keys after kCarrierKey (whose value is the message's name).
constexpr std::string_view kHeaderCount = "pmixflow.hdr";
constexpr std::string_view kId = "pmixflow.id";
constexpr std::string_view kCorr = "pmixflow.corr";
constexpr std::string_view kCaller = "pmixflow.caller";
constexpr std::string_view kDirective = "pmixflow.directive";
constexpr std::string_view kSession = "pmixflow.session";
constexpr std::string_view kStatus = "pmixflow.status";

struct Header {
  InfoList items;
  void id(std::uint64_t v) { items.add(kId, v); }
  void corr(const std::string& v) { items.add(kCorr, v); }
};

template <class T>
const T& need(const InfoList& h, std::string_view key) {
  const T* v = h.get<T>(key);
  if (!v) throw std::invalid_argument("a carried message without " + std::string(key));
  return *v;
}

InfoList assemble(const Message& m, Header h, const InfoList& body) {
  InfoList out;
  out.add(kCarrierKey, std::string(message_name(kind_of(m))));
  out.add(kHeaderCount, static_cast<std::uint32_t>(h.items.size()));
  for (auto& item : h.items.items) out.items.push_back(std::move(item));
  for (const auto& item : body.items) out.items.push_back(item);
  return out;
}

template <class T>
std::optional<Message> decode(const std::string& name, const InfoList& h, InfoList body) {
  T m;
  if (message_name(kind_of<T>()) != name) return std::nullopt;
  if constexpr (requires { m.id; }) m.id = need<std::uint64_t>(h, kId);
  if constexpr (requires { m.corr; }) m.corr = need<std::string>(h, kCorr);
  if constexpr (requires { m.caller; }) m.caller = need<Proc>(h, kCaller);
  if constexpr (requires { m.directive; }) m.directive = need<Directive>(h, kDirective);
  if constexpr (requires { m.session_id; }) m.session_id = need<std::uint32_t>(h, kSession);
  if constexpr (requires { m.status; }) m.status = need<Status>(h, kStatus);
  if constexpr (requires { m.code; }) m.code = need<Status>(h, kStatus);
  if constexpr (requires { m.directives; })
    m.directives = std::move(body);
  else if constexpr (requires { m.info; })
    m.info = std::move(body);
  return Message(std::move(m));
}

}  // namespace

bool carried(const Message& m) {
  return std::holds_alternative<AllocRequest>(m) || std::holds_alternative<AllocResponse>(m) ||
         std::holds_alternative<SessionCtrlRequest>(m) || std::holds_alternative<SessionCtrlResponse>(m) ||
         std::holds_alternative<ConnectRequest>(m) || std::holds_alternative<ConnectResponse>(m) ||
         std::holds_alternative<Notification>(m);
}

InfoList to_carrier(const Message& m) {
  return std::visit(
      [&m](const auto& x) -> InfoList {
        Header h;
        InfoList none;
        if constexpr (requires { x.id; }) h.id(x.id);
        if constexpr (requires { x.corr; }) h.corr(x.corr);
        if constexpr (requires { x.caller; }) h.items.add(kCaller, x.caller);
        if constexpr (requires { x.directive; }) h.items.add(kDirective, x.directive);
        if constexpr (requires { x.session_id; }) h.items.add(kSession, x.session_id);
        if constexpr (requires { x.status; }) h.items.add(kStatus, x.status);
        if constexpr (requires { x.code; }) h.items.add(kStatus, x.code);
        if constexpr (requires { x.directives; })
          return assemble(m, std::move(h), x.directives);
        else if constexpr (requires { x.info; })
          return assemble(m, std::move(h), x.info);
        else
          return assemble(m, std::move(h), none);
      },
      m);
}

std::optional<Message> from_carrier(const InfoList& items) {
  if (items.items.empty() || items.items[0].key != kCarrierKey) return std::nullopt;
  if (items.items.size() < 2) throw std::invalid_argument("a carried message with a malformed header");
  const auto* name = std::get_if<std::string>(&items.items[0].value);
  const auto* count = std::get_if<std::uint32_t>(&items.items[1].value);
  if (!name || !count || items.items[1].key != kHeaderCount || items.items.size() < 2 + std::size_t{*count})
    throw std::invalid_argument("a carried message with a malformed header");
  InfoList h, body;
  h.items.assign(items.items.begin() + 2, items.items.begin() + 2 + *count);
  body.items.assign(items.items.begin() + 2 + *count, items.items.end());
  for (auto decoded : {decode<AllocRequest>(*name, h, body), decode<AllocResponse>(*name, h, body),
                       decode<SessionCtrlRequest>(*name, h, body), decode<SessionCtrlResponse>(*name, h, body),
                       decode<ConnectRequest>(*name, h, body), decode<ConnectResponse>(*name, h, body),
                       decode<Notification>(*name, h, body)})
    if (decoded) return decoded;
  throw std::invalid_argument("a carried message of a kind the carrier does not take: " + *name);
}

void add_corr(InfoList& info, const std::string& corr) {
  if (!corr.empty()) info.add(kCorrKey, corr);
}

std::string take_corr(InfoList& info) {
  std::string corr;
  if (const auto* c = info.get<std::string>(kCorrKey)) corr = *c;
  info.erase(kCorrKey);
  return corr;
}

namespace {
constexpr std::string_view kToKey = "pmixflow.to";
constexpr std::string_view kFromKey = "pmixflow.from";
constexpr std::string_view kSeqKey = "pmixflow.seq";
}  // namespace

void add_envelope(InfoList& info, const Envelope& e) {
  info.add(kToKey, e.to);
  info.add(kFromKey, e.from);
  info.add(kSeqKey, e.seq);
}

std::optional<Envelope> take_envelope(InfoList& info) {
  const auto* to = info.get<Proc>(kToKey);
  const auto* from = info.get<Proc>(kFromKey);
  const auto* seq = info.get<std::uint64_t>(kSeqKey);
  std::optional<Envelope> e;
  if (to && from && seq) e = Envelope{*to, *from, *seq};
  for (auto key : {kToKey, kFromKey, kSeqKey}) info.erase(key);
  return e;
}

bool Arrivals::first(std::uint64_t seq) {
  if (seq >= next_) {
    for (std::uint64_t s = std::max(next_, seq > kWindow ? seq - kWindow : 0); s < seq; ++s) missing_.insert(s);
    next_ = seq + 1;
    while (!missing_.empty() && *missing_.begin() + kWindow < next_) missing_.erase(missing_.begin());
    return true;
  }
  return missing_.erase(seq) > 0;
}

}  // namespace pmixflow::emul
