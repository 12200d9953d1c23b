#include "pmixflow/roles/scheduler/request_queue.hpp"

#include <algorithm>

namespace pmixflow {

void RequestQueue::enqueue(QueueEntry entry) {
  const auto at =
      std::upper_bound(views_.begin(), views_.end(), entry.view, [](const QueuedRequest& a, const QueuedRequest& b) {
        return a.submit_time != b.submit_time ? a.submit_time < b.submit_time : a.key < b.key;
      });
  pending_.emplace(entry.view.key, std::move(entry.pending));
  views_.insert(at, entry.view);
}

QueueEntry RequestQueue::remove_at(std::size_t i) {
  const QueuedRequest view = views_[i];
  views_.erase(views_.begin() + static_cast<std::ptrdiff_t>(i));
  auto node = pending_.extract(view.key);
  return QueueEntry{view, std::move(node.mapped())};
}

const Pending* RequestQueue::pending(std::uint64_t key) const {
  const auto it = pending_.find(key);
  return it == pending_.end() ? nullptr : &it->second;
}

std::optional<QueueEntry> RequestQueue::take(std::uint64_t key) {
  for (std::size_t i = 0; i < views_.size(); ++i)
    if (views_[i].key == key) return remove_at(i);
  return std::nullopt;
}

std::optional<QueueEntry> RequestQueue::take_first(const Pick& pick) {
  for (std::size_t i = 0; i < views_.size(); ++i)
    if (pick(views_[i], pending_.at(views_[i].key))) return remove_at(i);
  return std::nullopt;
}

std::vector<QueueEntry> RequestQueue::take_all(const Pick& pick) {
  std::vector<QueueEntry> out;
  for (std::size_t i = 0; i < views_.size();) {
    if (pick(views_[i], pending_.at(views_[i].key)))
      out.push_back(remove_at(i));
    else
      ++i;
  }
  return out;
}

}  // namespace pmixflow
