#include "pmixflow/log/in_flight.hpp"

#include <algorithm>

namespace pmixflow::log {
namespace {
// Pairs kept with nothing in flight, so that the next message between them finds its queue
// ready (no allocation per message); past this many, an emptied pair is let go.
constexpr std::size_t kIdlePairs = 4096;
constexpr std::size_t kSpares = 256;
}  // namespace

InFlight::Map::iterator InFlight::find(std::string_view sender, std::string_view receiver) {
  // Party names never hold a newline (each is a JSON string of one line, written escaped): it
  // separates the two unambiguously.
  key_.assign(sender);
  key_ += '\n';
  key_ += receiver;
  return pairs_.find(key_);
}

void InFlight::sent(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id,
                    std::string_view tail, std::uint64_t line, std::uint64_t message) {
  auto at = find(sender, receiver);
  if (at == pairs_.end()) at = pairs_.emplace(key_, Queue{}).first;
  std::string s;
  if (!spare_.empty()) {
    s = std::move(spare_.back());
    spare_.pop_back();
  }
  s.assign(tail);
  at->second.push_back(Send{std::move(s), line, id, message});
  ++count_;
}

// Forgets the sends of `id` in the pair's queue up to `last`, the others staying in order.
void InFlight::forget(Map::iterator at, std::optional<std::uint64_t> id, Queue::iterator last) {
  Queue& q = at->second;
  auto out = q.begin();
  for (auto i = q.begin(); i != q.end(); ++i) {
    if (i <= last && i->id == id) {
      if (spare_.size() < kSpares) spare_.push_back(std::move(i->tail));
      --count_;
      continue;
    }
    if (out != i) *out = std::move(*i);
    ++out;
  }
  q.erase(out, q.end());
  if (q.empty() && pairs_.size() > kIdlePairs) pairs_.erase(at);
}

// The rule both ends apply to a recv whose `tail` is known, from the oldest send of its key.
bool InFlight::forget_first_like(Map::iterator at, std::optional<std::uint64_t> id, Queue::iterator oldest,
                                 std::string_view tail) {
  auto match = oldest;
  while (match != at->second.end() && (match->id != id || match->tail != tail)) ++match;
  if (match == at->second.end()) {
    // Changed on its way (a requestor's credentials stamped in): most likely the oldest send
    // of its key, which no later recv will match either; kept, it would stay for good.
    forget(at, id, oldest);
    return false;
  }
  const bool first = match == oldest;
  forget(at, id, match);
  return first;
}

bool InFlight::received(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id,
                        std::string_view tail) {
  const auto at = find(sender, receiver);
  if (at == pairs_.end()) return false;
  Queue& q = at->second;
  const auto oldest = std::find_if(q.begin(), q.end(), [id](const Send& s) { return s.id == id; });
  if (oldest == q.end()) return false;
  return forget_first_like(at, id, oldest, tail);
}

std::optional<bool> InFlight::received_as(std::string_view sender, std::string_view receiver,
                                          std::optional<std::uint64_t> id, std::uint64_t message) {
  if (message == 0) return std::nullopt;  // unnumbered: nothing vouched for
  const auto at = find(sender, receiver);
  if (at == pairs_.end()) return false;
  Queue& q = at->second;
  const auto oldest = std::find_if(q.begin(), q.end(), [id](const Send& s) { return s.id == id; });
  if (oldest == q.end()) return false;
  if (oldest->message == message) {
    // Its own send, the oldest of its key: the content is the same, nothing to compare.
    forget(at, id, oldest);
    return true;
  }
  const auto own = std::find_if(oldest, q.end(), [&](const Send& s) { return s.message == message && s.id == id; });
  if (own == q.end()) return std::nullopt;
  // Another send of its key is older: the content decides, as for any recv.
  return forget_first_like(at, id, oldest, own->tail);
}

std::optional<std::string_view> InFlight::tail_of(std::string_view sender, std::string_view receiver,
                                                  std::uint64_t message) {
  if (message == 0) return std::nullopt;
  const auto at = find(sender, receiver);
  if (at == pairs_.end()) return std::nullopt;
  for (const Send& s : at->second)
    if (s.message == message) return std::string_view(s.tail);
  return std::nullopt;
}

std::optional<InFlight::Send> InFlight::take_oldest(std::string_view sender, std::string_view receiver,
                                                    std::optional<std::uint64_t> id) {
  const auto at = find(sender, receiver);
  if (at == pairs_.end()) return std::nullopt;
  const auto oldest = std::find_if(at->second.begin(), at->second.end(), [id](const Send& s) { return s.id == id; });
  if (oldest == at->second.end()) return std::nullopt;
  Send taken{std::move(oldest->tail), oldest->line, id};
  forget(at, id, oldest);
  return taken;
}

}  // namespace pmixflow::log
