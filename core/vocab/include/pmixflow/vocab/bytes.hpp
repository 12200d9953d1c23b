// The primitives of the binary codecs (proto/wire.hpp for messages between processes,
// log/event_codec.hpp for log events): fixed-width little-endian integers whatever the host,
// doubles bit for bit, strings as a u32 length and their bytes. The reader checks every read
// against what is left before touching it, so hostile or cut input is refused with the byte
// offset where it broke, never read past and never trusted for an allocation size.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace pmixflow {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { fixed(v, 4); }
  void u64(std::uint64_t v) { fixed(v, 8); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void str(std::string_view s) {
    count(s.size());
    out_.append(s);
  }
  // The u32 length of what follows (a string's bytes, a list's items).
  void count(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error(std::to_string(n) + " bytes or items do not fit a u32 length");
    u32(static_cast<std::uint32_t>(n));
  }

  std::size_t size() const { return out_.size(); }
  std::string take() { return std::exchange(out_, {}); }

 private:
  void fixed(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Reads what ByteWriter wrote. Every failure throws `Error(what, offset)`: the codecs built on
// it each have their own error type, so that a caller can tell a bad frame from a bad event.
template <class Error>
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  // The reader views its input: a temporary string would be gone before the first read.
  template <class S>
  requires std::same_as<S, std::string>
  explicit ByteReader(S&& temporary) = delete;

  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1, "a u8")[0]); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(fixed(4, "a u32")); }
  std::uint64_t u64() { return fixed(8, "a u64"); }
  std::int32_t i32() { return static_cast<std::int32_t>(fixed(4, "an i32")); }
  std::int64_t i64() { return static_cast<std::int64_t>(fixed(8, "an i64")); }
  double f64() { return std::bit_cast<double>(fixed(8, "an f64")); }
  bool boolean() {
    const std::size_t at = pos_;
    const std::uint8_t b = u8();
    if (b > 1) fail_at(at, "a bool is " + std::to_string(b) + ", not 0 or 1");
    return b == 1;
  }
  // A view of the input: valid as long as the bytes the reader was given.
  std::string_view str() {
    const std::uint32_t n = u32();
    return take(n, "a string");
  }
  // A u32 count of items each at least `min_bytes` long, refused when the rest of the input
  // could not hold them: a hostile count must not size an allocation.
  std::uint32_t count(std::size_t min_bytes, std::string_view what) {
    const std::size_t at = pos_;
    const std::uint32_t n = u32();
    if (min_bytes > 0 && n > remaining() / min_bytes)
      fail_at(at, std::to_string(n) + " " + std::string(what) + " cannot fit in the " + std::to_string(remaining()) +
                      " bytes left");
    return n;
  }

  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return in_.size() - pos_; }
  bool done() const { return pos_ == in_.size(); }
  void expect_end() const {
    if (!done()) fail(std::to_string(remaining()) + " trailing bytes");
  }

  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const { throw Error(what, at); }

 private:
  std::string_view take(std::size_t n, std::string_view what) {
    if (n > remaining())
      fail("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left");
    const std::string_view out = in_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::uint64_t fixed(std::size_t n, std::string_view what) {
    const std::string_view b = take(n, what);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[i])} << (8 * i);
    return v;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace pmixflow
