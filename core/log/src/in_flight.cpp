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
                    std::string_view tail, std::uint64_t line) {
  auto at = find(sender, receiver);
  if (at == pairs_.end()) at = pairs_.emplace(key_, Queue{}).first;
  std::string s;
  if (!spare_.empty()) {
    s = std::move(spare_.back());
    spare_.pop_back();
  }
  s.assign(tail);
  at->second.push_back(Send{std::move(s), line, id});
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

bool InFlight::received(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id,
                        std::string_view tail) {
  const auto at = find(sender, receiver);
  if (at == pairs_.end()) return false;
  Queue& q = at->second;
  const auto same_id = [id](const Send& s) { return s.id == id; };
  const auto oldest = std::find_if(q.begin(), q.end(), same_id);
  if (oldest == q.end()) return false;
  auto match = oldest;
  while (match != q.end() && (match->id != id || match->tail != tail)) ++match;
  if (match == q.end()) {
    // Changed on its way (a requestor's credentials stamped in): most likely the oldest send
    // of its key, which no later recv will match either; kept, it would stay for good.
    forget(at, id, oldest);
    return false;
  }
  const bool first = match == oldest;
  forget(at, id, match);
  return first;
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
