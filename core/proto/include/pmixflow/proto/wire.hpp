// The flow's messages in binary, for the emulator's hops between processes (daemon <->
// controller): one byte of MessageKind, then every field of that message in declaration
// order. The encoding is strict both ways: a decoder accepts exactly what an encoder writes
// (no trailing bytes, no unknown kind, tag or directive, lists nested at most
// kMaxInfoDepth deep), and refuses anything else with a WireError naming the byte offset.
//
//   Proc     string nspace, u32 rank
//   App      string cmd, u32 count + strings argv, u32 count + strings env, u32 maxprocs
//   Value    u8 index of the alternative in Value, then it (Status i32, Directive u8)
//   InfoList u32 count, then per item: string key, Value
//   Address  u8 PartyKind, u32 index
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/proto/messages.hpp"
#include "pmixflow/vocab/bytes.hpp"
#include "pmixflow/vocab/info.hpp"

namespace pmixflow {

// How deep an InfoList may sit inside InfoLists (the outermost list is depth 1). PMIx nests
// one level (PMIX_JOB_INFO_ARRAY); the limit keeps hostile input from exhausting the stack.
inline constexpr int kMaxInfoDepth = 32;

class WireError : public std::runtime_error {
 public:
  WireError(const std::string& what, std::size_t offset);
  std::size_t offset() const { return offset_; }  // in the bytes being read (or written)

 private:
  std::size_t offset_;
};

// A writer that has thrown holds part of a frame: start the frame again with a new one.
class WireWriter : public ByteWriter {
 public:
  void proc(const Proc& p);
  void app(const App& a);
  void apps(std::span<const App> apps);
  void value(const Value& v);
  void info(const InfoList& list);  // throws WireError beyond kMaxInfoDepth, as a reader would
  void address(const Address& a);
  void status(Status s) { i32(static_cast<std::int32_t>(s)); }
  // Enums are checked as a reader checks them: a value no enumerator names throws WireError.
  void directive(Directive d);
  void message_kind(MessageKind k);
  void party_kind(PartyKind k);

 private:
  int depth_ = 0;
};

class WireReader : public ByteReader<WireError> {
 public:
  using ByteReader::ByteReader;

  std::string string() { return std::string(str()); }
  Proc proc();
  App app();
  std::vector<App> apps();
  Value value();
  InfoList info();
  Address address();
  Status status() { return static_cast<Status>(i32()); }  // an open set: any value is one
  Directive directive();
  MessageKind message_kind();
  PartyKind party_kind();

 private:
  int depth_ = 0;
};

// A message inside a larger frame: put_message writes its kind and fields, get_message reads
// them back and leaves the reader after them.
void put_message(WireWriter& out, const Message& m);
Message get_message(WireReader& in);

// A message as a whole frame: decode_message throws WireError on anything encode_message
// would not have written, trailing bytes included.
std::string encode_message(const Message& m);
Message decode_message(std::string_view bytes);

}  // namespace pmixflow
