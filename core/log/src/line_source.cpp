#include "line_source.hpp"

#include <cerrno>
#include <cstring>

namespace pmixflow::log {

bool LineSource::refill() {
  at_ = 0;
  end_ = std::fread(block_.data(), 1, block_.size(), file_);
  if (end_ > 0) return true;
  // At the end of what is written so far: a file still being written is read on from here.
  if (!std::ferror(file_)) std::clearerr(file_);
  return false;
}

LineSource::Got LineSource::next(std::string_view& line) {
  if (handed_pending_) pending_.clear();
  handed_pending_ = false;
  while (true) {
    const char* from = block_.data() + at_;
    const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - at_));
    const std::size_t take = nl ? static_cast<std::size_t>(nl - from) : end_ - at_;
    if (pending_.size() + take > max_line_) {
      line = std::string_view(pending_);
      return Got::TooLong;
    }
    if (nl) {
      at_ += take + 1;
      consumed_ += pending_.size() + take + 1;
      if (pending_.empty()) {
        line = std::string_view(from, take);
      } else {
        pending_.append(from, take);
        line = pending_;
        handed_pending_ = true;
      }
      return Got::Line;
    }
    pending_.append(from, take);
    at_ = end_;
    errno = 0;
    if (!refill()) {
      if (std::ferror(file_)) return Got::Failed;
      line = pending_;
      return pending_.empty() ? Got::End : Got::Partial;
    }
  }
}

}  // namespace pmixflow::log
