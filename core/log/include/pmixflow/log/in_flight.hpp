// The messages of a log that have been sent and not yet received, as both ends of a version 3
// log keep them: a `recv` line whose content is its `send`'s is written short (`from` and `id`
// only), and the reader puts the rest back from the send it remembers.
//
// A send is keyed by (sender, receiver, id), id being absent for the messages that carry none;
// sends of one key are kept oldest first. The writer writes a recv short only when the oldest
// send of its key has exactly the recv's content (the fields after `to`/`from`, as rendered),
// so a short line always stands for that send, whatever the environment does: messages taken
// out of order, refused, never received, or a recv changed on its way (a requestor's
// credentials stamped in). Both ends apply the same rule to the same lines, so they hold the
// same sends: on a recv, the first send of its key with its content and every older one of
// that key are forgotten (an older one's own recv, if it comes, is then written whole), or
// the oldest of its key when none has its content. Memory is that of the messages in
// flight, and of those never received.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pmixflow::log {

class InFlight {
 public:
  // A send line: `tail` is what follows its `to` member (`,"msg":...`, without the closing
  // brace); `line` where it is, for a reader to name (0 when nobody asks).
  // `message`: the environment's number for it (0: none), for received_as().
  void sent(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id, std::string_view tail,
            std::uint64_t line = 0, std::uint64_t message = 0);
  // A recv line written whole, with the same `tail` (what follows `from`): forgets the first
  // send of its key with that tail and the older ones, or the oldest when none has that
  // tail. True when the oldest had it: the line may then be written short.
  bool received(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id,
                std::string_view tail);
  // A recv the environment vouches for: it carries exactly what the send it numbered
  // `message` did. Decides and forgets as received() would given that send's tail, without
  // the recv's own: true, short; false, whole. Nothing, and nothing forgotten, when that send
  // is no longer remembered: the recv must then be rendered and given to received().
  std::optional<bool> received_as(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id,
                                  std::uint64_t message);
  // The tail of the remembered send numbered `message`, if any.
  std::optional<std::string_view> tail_of(std::string_view sender, std::string_view receiver, std::uint64_t message);
  struct Send {
    std::string tail;
    std::uint64_t line = 0;
    std::optional<std::uint64_t> id;
    std::uint64_t message = 0;
  };
  // A short recv line: the oldest send of its key, which is forgotten; nothing when there is
  // none (the log is not one pmixflow wrote).
  std::optional<Send> take_oldest(std::string_view sender, std::string_view receiver, std::optional<std::uint64_t> id);

  std::size_t size() const { return count_; }  // sends remembered

 private:
  // A pair's sends, oldest first, whatever their id: few are on their way at once.
  using Queue = std::vector<Send>;
  using Map = std::unordered_map<std::string, Queue>;

  Map::iterator find(std::string_view sender, std::string_view receiver);
  void forget(Map::iterator at, std::optional<std::uint64_t> id, Queue::iterator last);
  bool forget_first_like(Map::iterator at, std::optional<std::uint64_t> id, Queue::iterator oldest,
                         std::string_view tail);

  Map pairs_;                       // by "sender\nreceiver", looked up through key_ (no allocation)
  std::vector<std::string> spare_;  // the strings of forgotten sends, reused for new ones
  std::string key_;                 // scratch for the key being looked up
  std::size_t count_ = 0;
};

}  // namespace pmixflow::log
