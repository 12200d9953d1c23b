// The border every input crosses (core/vocab): numbers checked against their field's range,
// quoted values cut to a readable length, UTF-8 refused or escaped, JSON nesting bounded, a
// directory named as one. What a user sees when an input is wrong, whatever the format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "pmixflow/vocab/input_file.hpp"
#include "pmixflow/vocab/json_input.hpp"
#include "pmixflow/vocab/json_text.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "pmixflow/vocab/utf8.hpp"
#include "test_files.hpp"

namespace pmixflow {
namespace {

using test::Contains;
using test::expect_input_error;

TEST(ReadWhole, NeverWraps) {
  std::uint32_t procs = 0;
  // 2^32 + 1 must not become 1, as a cast from 64 bits would make it.
  EXPECT_EQ(read_whole<std::uint32_t>("4294967297", procs), NumberFault::OutOfRange);
  EXPECT_EQ(read_whole<std::uint32_t>("4294967295", procs), NumberFault::None);
  EXPECT_EQ(procs, 4294967295u);
  std::uint64_t seed = 0;
  EXPECT_EQ(read_whole<std::uint64_t>("-1", seed), NumberFault::OutOfRange);  // not 2^64 - 1
  EXPECT_EQ(read_whole<std::uint64_t>("99999999999999999999999", seed), NumberFault::OutOfRange);
  int code = 0;
  EXPECT_EQ(read_whole("4294967296", code, 0, 255), NumberFault::OutOfRange);  // not 0, success
}

TEST(ReadWhole, TakesDecimalsWithoutAFraction) {
  std::int64_t v = 0;
  EXPECT_EQ(read_whole<std::int64_t>("-1.00", v), NumberFault::None);
  EXPECT_EQ(v, -1);
  EXPECT_EQ(read_whole<std::int64_t>("1e3", v), NumberFault::None);
  EXPECT_EQ(v, 1000);
  EXPECT_EQ(read_whole<std::int64_t>("2.5", v), NumberFault::NotWhole);
  EXPECT_EQ(read_whole<std::int64_t>("1e30", v), NumberFault::OutOfRange);
  EXPECT_EQ(read_whole<std::int64_t>("4x", v), NumberFault::NotANumber);
  EXPECT_EQ(read_whole<std::int64_t>("", v), NumberFault::NotANumber);
  EXPECT_EQ(read_whole<std::int64_t>("nan", v), NumberFault::NotFinite);
}

TEST(ReadReal, RefusesWhatIsNotAFiniteDecimal) {
  double d = 0;
  for (const char* text : {"nan", "NaN", "-inf", "Infinity", "+INF"})
    EXPECT_EQ(read_real(text, d, 0.0, 1.0), NumberFault::NotFinite) << text;
  EXPECT_EQ(read_real("0x10", d, 0.0, 100.0), NumberFault::NotANumber);
  EXPECT_EQ(read_real("1e400", d, 0.0, 1e300), NumberFault::OutOfRange);
  EXPECT_EQ(read_real("1e-400", d, 0.0, 1.0), NumberFault::None);
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(read_real("-0.5", d, 0.0, 1.0), NumberFault::OutOfRange);
  EXPECT_EQ(read_real("0.25", d, 0.0, 1.0), NumberFault::None);
  EXPECT_EQ(d, 0.25);
}

TEST(NumberRefusal, SaysWhatAndTheRangeInPlainNumbers) {
  EXPECT_EQ(number_refusal(NumberFault::OutOfRange, "4294967297", range_text<std::uint32_t>(0, UINT32_MAX)),
            "'4294967297' is out of range (0 to 4294967295)");
  EXPECT_EQ(number_refusal(NumberFault::NotFinite, "nan", range_text(0.0, 1.0)), "'nan' is not a finite number");
  EXPECT_EQ(range_text(0.0, std::numeric_limits<double>::max()), "at least 0");
  EXPECT_EQ(range_text(0.0, kMaxSeconds), "0 to 4294967295");
  EXPECT_EQ(range_text(0.001, 1e6), "0.001 to 1000000");  // never "1e+06"
}

TEST(CheckedWhole, NamesFileLineAndField) {
  const InputError e = expect_input_error([] {
    checked_whole<std::uint32_t>("4294967297", InputSite{"jobs.txt", 7, "np"});
  });
  EXPECT_EQ(e.file(), "jobs.txt");
  EXPECT_EQ(e.line(), 7u);
  EXPECT_EQ(e.field(), "np");
  EXPECT_TRUE(Contains(e.what(), "out of range (0 to 4294967295)"));
  EXPECT_FALSE(Contains(e.what(), "stoul"));
}

TEST(QuoteValue, CutsAtEightyCharactersAndSaysTheSize) {
  const std::string megabyte(1 << 20, 'x');
  const std::string q = quote_value(megabyte);
  EXPECT_LT(q.size(), 120u);
  EXPECT_TRUE(Contains(q, "(1048576 bytes)"));
  EXPECT_EQ(quote_value("short"), "'short'");
  // Control characters and stray bytes would break the message's line: written \xNN.
  EXPECT_EQ(quote_value("a\nb\xff"), "'a\\x0Ab\\xFF'");
  EXPECT_EQ(quote_value("caf\xc3\xa9"), "'caf\xc3\xa9'");  // UTF-8 kept as it is
}

TEST(Utf8, FindsTheFirstBadByte) {
  EXPECT_TRUE(is_utf8("plain and caf\xc3\xa9"));
  EXPECT_FALSE(is_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(invalid_utf8_text("ab\xff"), "not valid UTF-8 (byte 0xFF at offset 2)");
  EXPECT_EQ(utf8_from_bytes("a\xff"), "a\xc3\xbf");  // U+00FF: nothing lost
}

TEST(JsonQuote, EscapesBytesThatAreNotUtf8) {
  std::string out;
  json_quote_into(out, "ok \xc3\xa9 bad \xff\xfe");
  EXPECT_EQ(out, "\"ok \xc3\xa9 bad \\u00ff\\u00fe\"");
  EXPECT_TRUE(nlohmann::json::accept(out));  // a strict reader takes it
}

TEST(JsonQuote, EscapesACharacterWhereverItSits) {
  // Plain runs are scanned eight bytes at a time: a character to escape is found in any lane
  // of a block and in the tail after the last whole block.
  const std::pair<char, std::string> escapes[] = {{'"', "\\\""},       {'\\', "\\\\"},      {'\n', "\\n"},
                                                  {'\x01', "\\u0001"}, {'\x1f', "\\u001f"}, {'\xff', "\\u00ff"}};
  for (std::size_t size = 1; size <= 20; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      for (const auto& [c, escaped] : escapes) {
        std::string s(size, '~');
        s[at] = c;
        std::string out;
        json_quote_into(out, s);
        EXPECT_EQ(out, "\"" + std::string(at, '~') + escaped + std::string(size - at - 1, '~') + "\"")
            << "size " << size << ", at " << at;
      }
    }
  }
  std::string out = "x";
  json_quote_into(out, "plain text of more than eight characters");
  EXPECT_EQ(out, "x\"plain text of more than eight characters\"");
}

TEST(JsonInput, DeepNestingIsAClearError) {
  const std::string deep(100000, '[');
  const InputError e = expect_input_error([&] { parse_json_input(deep, InputSite{"deep.jsonl", 3, ""}); });
  EXPECT_EQ(e.file(), "deep.jsonl");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_TRUE(Contains(e.what(), "nested deeper than 64 levels"));
  EXPECT_LT(std::string(e.what()).size(), 300u);
  std::string fine;
  for (int i = 0; i < 60; ++i) fine += '[';
  for (int i = 0; i < 60; ++i) fine += ']';
  EXPECT_NO_THROW(parse_json_input(fine, InputSite{"ok.json", 1, ""}));
}

TEST(JsonInput, InvalidUtf8IsRefusedNamingTheMember) {
  const InputError e = expect_input_error([] {
    parse_json_input(R"({"info":{"PMIX_ALLOC_QUEUE":"q)"
                     "\xff"
                     R"("}})",
                     InputSite{"s.jsonl", 2, ""});
  });
  EXPECT_EQ(e.field(), "info.PMIX_ALLOC_QUEUE");
  EXPECT_TRUE(Contains(e.what(), "not valid UTF-8 (byte 0xFF"));
}

TEST(JsonInput, ParseErrorsNeitherTagNorEchoAMegabyte) {
  const std::string junk = "{\"a\":" + std::string(1 << 20, '9') + "x}";
  const InputError e = expect_input_error([&] { parse_json_input(junk, InputSite{"big.jsonl", 1, ""}); });
  EXPECT_FALSE(Contains(e.what(), "[json.exception"));
  EXPECT_LT(std::string(e.what()).size(), 400u);
}

TEST(JsonWhole, ChecksRangeAndType) {
  std::uint32_t np = 0;
  EXPECT_EQ(json_whole(nlohmann::json(4294967297ull), np, 0u, UINT32_MAX), NumberFault::OutOfRange);
  EXPECT_EQ(json_whole(nlohmann::json(4.0), np, 0u, UINT32_MAX), NumberFault::None);
  EXPECT_EQ(np, 4u);
  EXPECT_EQ(json_whole(nlohmann::json(-1), np, 0u, UINT32_MAX), NumberFault::OutOfRange);
  EXPECT_EQ(json_whole(nlohmann::json("4"), np, 0u, UINT32_MAX), NumberFault::NotANumber);
  EXPECT_EQ(json_whole(nlohmann::json(1e300), np, 0u, UINT32_MAX), NumberFault::OutOfRange);
}

TEST(InputFile, ADirectoryIsNamedAsOne) {
  const test::TempDir tmp;
  const InputError e = expect_input_error([&] { refuse_directory(tmp.dir(), "a scenario file"); });
  EXPECT_EQ(e.file(), tmp.dir());
  EXPECT_TRUE(Contains(e.what(), "is a directory, not a scenario file"));
  EXPECT_NO_THROW(refuse_directory(tmp.write("f.jsonl", "{}"), "a scenario file"));
}

}  // namespace
}  // namespace pmixflow
