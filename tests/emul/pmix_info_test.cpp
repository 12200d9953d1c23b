// The flow's values to PMIx and back, in-process (no PMIx_Init is needed to build, copy and free
// pmix_info_t arrays): exact round trips for every Value alternative, the PMIx type each is
// written as, the foreign types read, and values the flow cannot carry refused by key and type.
#include "pmixflow/emul/pmix_info.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace pmixflow::emul {
namespace {

InfoList every_alternative() {
  InfoList inner;
  inner.add("pmix.alloc.nnodes", std::uint64_t{4}).add("pmix.alloc.time", std::string("1:00:00"));
  InfoList list;
  list.add("pmix.ssn.inst", true)
      .add("pmix.ssn.pause", false)
      .add("pmix.timeout", std::int32_t{-7})
      .add("pmix.euid", std::uint32_t{4000000000u})
      .add("pmix.alloc.ncpus", std::uint64_t{1} << 40)
      .add("pmix.alloc.msize", 1536.25)
      .add("pmix.alloc.queue", std::string("batch"))
      .add("pmix.alloc.reqid", std::string())
      .add("pmix.job.term.status", Status::ErrJobAllocFailed)
      .add("pmix.alloc.reqdir", Directive::Activate)
      .add("pmix.requestor", Proc{"sched", 3})
      .add("pmix.ssn.res", inner)
      .add("pmix.ssn.app", std::vector<App>{App{"sleep", {"10"}, {"A=1", "B=2"}, 16}, App{"true", {}, {}, 0}})
      .add("pmix.job.arr", InfoList{})  // an empty array keeps its type
      .add("pmix.job.arr", inner);      // a key twice, order kept
  return list;
}

TEST(PmixInfo, EveryValueAlternativeRoundTripsExactly) {
  const InfoList list = every_alternative();
  const PmixInfos pmix = to_pmix(list);
  ASSERT_EQ(pmix.size(), list.size());
  EXPECT_EQ(from_pmix(pmix.data(), pmix.size()), list);
}

TEST(PmixInfo, EachAlternativeIsWrittenAsItsPmixType) {
  const InfoList list = every_alternative();
  const PmixInfos pmix = to_pmix(list);
  const pmix_data_type_t expected[] = {
      PMIX_BOOL,   PMIX_BOOL,       PMIX_INT32,      PMIX_UINT32,     PMIX_UINT64,
      PMIX_DOUBLE, PMIX_STRING,     PMIX_STRING,     PMIX_STATUS,     PMIX_ALLOC_DIRECTIVE,
      PMIX_PROC,   PMIX_DATA_ARRAY, PMIX_DATA_ARRAY, PMIX_DATA_ARRAY, PMIX_DATA_ARRAY};
  ASSERT_EQ(std::size(expected), pmix.size());
  for (std::size_t i = 0; i < pmix.size(); ++i) {
    EXPECT_STREQ(pmix[i].key, list.items[i].key.c_str());
    EXPECT_EQ(pmix[i].value.type, expected[i]) << pmix[i].key;
  }
  EXPECT_EQ(pmix[11].value.data.darray->type, PMIX_INFO);
  EXPECT_EQ(pmix[12].value.data.darray->type, PMIX_APP);
  EXPECT_EQ(pmix[13].value.data.darray->type, PMIX_INFO);
  EXPECT_EQ(pmix[13].value.data.darray->size, 0u);
  EXPECT_EQ(pmix[9].value.data.adir, PMIX_ALLOC_ACTIVATE);
  EXPECT_EQ(pmix[8].value.data.status, PMIX_ERR_JOB_ALLOC_FAILED);
  EXPECT_STREQ(pmix[10].value.data.proc->nspace, "sched");
  EXPECT_EQ(pmix[10].value.data.proc->rank, 3u);
}

TEST(PmixInfo, TheLibrarysOwnDeepCopyReadsBackTheSame) {
  // PMIx_Info_xfer walks what to_pmix built as the library walks it when it packs: a malformed
  // structure would show here (and under ASan).
  const InfoList list = every_alternative();
  const PmixInfos pmix = to_pmix(list);
  PmixInfos copy(pmix.size());
  for (std::size_t i = 0; i < pmix.size(); ++i) ASSERT_EQ(PMIx_Info_xfer(&copy[i], &pmix[i]), PMIX_SUCCESS);
  EXPECT_EQ(from_pmix(copy.data(), copy.size()), list);
}

TEST(PmixInfo, NestedArraysToAnyDepth) {
  InfoList deepest;
  deepest.add("pmix.alloc.nlist", std::string("n[01-04]"));
  InfoList middle;
  middle.add("pmix.ssn.job", deepest).add("pmix.ssn.app", std::vector<App>{});
  InfoList top;
  top.add("pmix.spawn.alloc", middle).add("pmix.spawn.alloc", InfoList{}.add("pmix.ssn.res", middle));
  const PmixInfos pmix = to_pmix(top);
  EXPECT_EQ(from_pmix(pmix.data(), pmix.size()), top);
}

TEST(PmixInfo, AnAppCarriesItsCommandAsArgvZero) {
  const App app{"sleep", {"10", "--flag"}, {"PMIXFLOW_RUNTIME=3"}, 8};
  const PmixApps pmix = to_pmix(std::span<const App>(&app, 1));
  const pmix_app_t& a = pmix.data()[0];
  EXPECT_STREQ(a.cmd, "sleep");
  ASSERT_NE(a.argv, nullptr);
  EXPECT_STREQ(a.argv[0], "sleep");
  EXPECT_STREQ(a.argv[1], "10");
  EXPECT_STREQ(a.argv[2], "--flag");
  EXPECT_EQ(a.argv[3], nullptr);
  ASSERT_NE(a.env, nullptr);
  EXPECT_STREQ(a.env[0], "PMIXFLOW_RUNTIME=3");
  EXPECT_EQ(a.env[1], nullptr);
  EXPECT_EQ(a.maxprocs, 8);
  EXPECT_EQ(a.cwd, nullptr);
  EXPECT_EQ(a.ninfo, 0u);
  EXPECT_EQ(from_pmix(a), app);
}

TEST(PmixInfo, AnAppWithoutArgumentsOrEnvironment) {
  const App app{"hostname", {}, {}, 0};
  PmixApps pmix(1);
  load(pmix.data()[0], app);
  EXPECT_STREQ(pmix.data()[0].argv[0], "hostname");
  EXPECT_EQ(pmix.data()[0].argv[1], nullptr);
  EXPECT_EQ(pmix.data()[0].env, nullptr);
  EXPECT_EQ(from_pmix(pmix.data()[0]), app);
}

TEST(PmixInfo, AForeignAppReadsItsArgumentsAfterArgvZero) {
  // What another PMIx client sends: argv[0] a name other than cmd, no env, no argv at all.
  PmixApps pmix(2);
  pmix_app_t& a = pmix.data()[0];
  a.cmd = ::strdup("/bin/sleep");
  pmix_status_t rc;
  PMIX_ARGV_APPEND(rc, a.argv, "sleep");
  ASSERT_EQ(rc, PMIX_SUCCESS);
  PMIX_ARGV_APPEND(rc, a.argv, "5");
  ASSERT_EQ(rc, PMIX_SUCCESS);
  a.maxprocs = 2;
  pmix.data()[1].cmd = ::strdup("true");
  EXPECT_EQ(from_pmix(a), (App{"/bin/sleep", {"5"}, {}, 2}));
  EXPECT_EQ(from_pmix(pmix.data()[1]), (App{"true", {}, {}, 0}));
}

TEST(PmixInfo, ProcAndStatus) {
  const pmix_proc_t p = to_pmix(Proc{"ctl", PMIX_RANK_WILDCARD});
  EXPECT_STREQ(p.nspace, "ctl");
  EXPECT_EQ(p.rank, PMIX_RANK_WILDCARD);
  EXPECT_EQ(from_pmix(p), (Proc{"ctl", PMIX_RANK_WILDCARD}));
  EXPECT_EQ(to_pmix(Status::DvmIsReady), PMIX_DVM_IS_READY);
  EXPECT_EQ(from_pmix_status(PMIX_ERR_DVM_MOD), Status::ErrDvmMod);
  EXPECT_EQ(from_pmix_status(-4242), static_cast<Status>(-4242));  // an open set: any code survives
  const std::string longest(PMIX_MAX_NSLEN, 'n');
  EXPECT_EQ(from_pmix(to_pmix(Proc{longest, 1})).nspace, longest);
}

// One item of a given PMIx type, as a foreign peer would send it.
template <class Fill>
PmixInfos one(const char* key, pmix_data_type_t type, Fill fill) {
  PmixInfos info(1);
  PMIX_LOAD_KEY(info[0].key, key);
  info[0].value.type = type;
  fill(info[0].value.data);
  return info;
}

TEST(PmixInfo, NarrowerAndPlatformTypesAreReadIntoTheFlowsAlternative) {
  auto read_one = [](const PmixInfos& i) { return from_pmix(i.data(), i.size()).items.at(0).value; };
  EXPECT_EQ(read_one(one("k", PMIX_INT, [](auto& d) { d.integer = -5; })), Value(std::int32_t{-5}));
  EXPECT_EQ(read_one(one("k", PMIX_INT16, [](auto& d) { d.int16 = -300; })), Value(std::int32_t{-300}));
  EXPECT_EQ(read_one(one("k", PMIX_INT8, [](auto& d) { d.int8 = -8; })), Value(std::int32_t{-8}));
  EXPECT_EQ(read_one(one("k", PMIX_UINT, [](auto& d) { d.uint = 7u; })), Value(std::uint32_t{7}));
  EXPECT_EQ(read_one(one("k", PMIX_UINT16, [](auto& d) { d.uint16 = 65535; })), Value(std::uint32_t{65535}));
  EXPECT_EQ(read_one(one("k", PMIX_UINT8, [](auto& d) { d.uint8 = 255; })), Value(std::uint32_t{255}));
  EXPECT_EQ(read_one(one("pmix.rank", PMIX_PROC_RANK, [](auto& d) { d.rank = 12; })), Value(std::uint32_t{12}));
  EXPECT_EQ(read_one(one("k", PMIX_SIZE, [](auto& d) { d.size = 1ul << 50; })), Value(std::uint64_t{1} << 50));
  EXPECT_EQ(read_one(one("pmix.alloc.msize", PMIX_FLOAT, [](auto& d) { d.fval = 2.5f; })), Value(2.5));
  EXPECT_EQ(read_one(one("pmix.ssn.pause", PMIX_UNDEF, [](auto&) {})), Value(true));
}

// The error's text, or "" when nothing was thrown.
std::string refusal(const PmixInfos& info) {
  try {
    from_pmix(info.data(), info.size());
  } catch (const PmixConversionError& e) {
    return e.what();
  }
  return "";
}

TEST(PmixInfo, AValueTheFlowCannotCarryIsRefusedByKeyAndType) {
  const std::string int64 = refusal(one("pmix.some.int64", PMIX_INT64, [](auto& d) { d.int64 = 1; }));
  EXPECT_NE(int64.find("pmix.some.int64"), std::string::npos) << int64;
  EXPECT_NE(int64.find("PMIX_INT64"), std::string::npos) << int64;

  int anything = 0;
  const std::string pointer = refusal(one(PMIX_EVENT_RETURN_OBJECT, PMIX_POINTER, [&](auto& d) { d.ptr = &anything; }));
  EXPECT_NE(pointer.find("pmix.evobject"), std::string::npos) << pointer;
  EXPECT_NE(pointer.find("PMIX_POINTER"), std::string::npos) << pointer;

  PmixInfos procs =
      one(PMIX_EVENT_CUSTOM_RANGE, PMIX_DATA_ARRAY, [](auto& d) { PMIX_DATA_ARRAY_CREATE(d.darray, 1, PMIX_PROC); });
  const std::string range = refusal(procs);
  EXPECT_NE(range.find("pmix.evrange"), std::string::npos) << range;
  EXPECT_NE(range.find("PMIX_DATA_ARRAY of PMIX_PROC"), std::string::npos) << range;
}

TEST(PmixInfo, ARefusalInsideAnArrayNamesTheInnerKey) {
  PmixInfos outer = one("pmix.ssn.res", PMIX_DATA_ARRAY, [](auto& d) {
    PMIX_DATA_ARRAY_CREATE(d.darray, 2, PMIX_INFO);
    auto* items = static_cast<pmix_info_t*>(d.darray->array);
    const uint64_t n = 2;
    PMIX_INFO_LOAD(&items[0], PMIX_ALLOC_NUM_NODES, &n, PMIX_UINT64);
    const time_t t = 5;
    PMIX_INFO_LOAD(&items[1], "pmix.inner.when", &t, PMIX_TIME);
  });
  const std::string text = refusal(outer);
  EXPECT_NE(text.find("pmix.inner.when"), std::string::npos) << text;
  EXPECT_NE(text.find("PMIX_TIME"), std::string::npos) << text;
}

TEST(PmixInfo, NamedKeysAreSkippedWhateverTheirType) {
  InfoList payload;
  payload.add("pmix.alloc.id", std::string("a7")).add("pmix.alloc.nnodes", std::uint64_t{2});
  PmixInfos info = to_pmix(payload, 3);
  int anything = 0;
  PMIX_INFO_LOAD(&info[2], PMIX_EVENT_RETURN_OBJECT, &anything, PMIX_POINTER);
  pmix_data_array_t* range = nullptr;
  PMIX_DATA_ARRAY_CREATE(range, 1, PMIX_PROC);
  PMIX_LOAD_KEY(info[3].key, PMIX_EVENT_CUSTOM_RANGE);
  info[3].value.type = PMIX_DATA_ARRAY;
  info[3].value.data.darray = range;
  PMIX_INFO_LOAD(&info[4], PMIX_EVENT_HDLR_NAME, "handler", PMIX_STRING);
  EXPECT_THROW(from_pmix(info.data(), info.size()), PmixConversionError);
  EXPECT_EQ(event_payload(info.data(), info.size()), payload);
  const std::string_view only_pointer[] = {PMIX_EVENT_RETURN_OBJECT};
  EXPECT_THROW(from_pmix(info.data(), info.size(), only_pointer), PmixConversionError);
}

TEST(PmixInfo, WhatPmixCannotCarryIsRefusedWhenWriting) {
  EXPECT_THROW(to_pmix(InfoList{}.add(std::string(PMIX_MAX_KEYLEN + 1, 'k'), true)), PmixConversionError);
  EXPECT_NO_THROW(to_pmix(InfoList{}.add(std::string(PMIX_MAX_KEYLEN, 'k'), true)));
  EXPECT_THROW(to_pmix(InfoList{}.add("pmix.nspace", std::string("a\0b", 3))), PmixConversionError);
  EXPECT_THROW(to_pmix(InfoList{}.add("pmix.requestor", Proc{std::string(PMIX_MAX_NSLEN + 1, 'n'), 0})),
               PmixConversionError);
  const std::vector<App> huge{App{"x", {}, {}, 1u << 31}};
  EXPECT_THROW(to_pmix(InfoList{}.add("pmix.ssn.app", huge)), PmixConversionError);
  // A refusal deep inside an array frees what was built before it (ASan would see a leak).
  InfoList nested;
  nested.add("pmix.ssn.res", InfoList{}.add("a", std::string("x")).add("b", std::string("\0", 1)));
  EXPECT_THROW(to_pmix(nested), PmixConversionError);
}

TEST(PmixInfos, OwnsMovesAndHandsOver) {
  PmixInfos a = to_pmix(InfoList{}.add("pmix.alloc.id", std::string("a1")), 1);
  EXPECT_EQ(a.size(), 2u);
  PmixInfos b = std::move(a);
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  ASSERT_EQ(b.size(), 2u);
  a = std::move(b);
  ASSERT_EQ(a.size(), 2u);

  const pmix_info_t* array = a.data();
  PmixInfos::Handoff h = a.release();
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(h.info, array);
  EXPECT_EQ(h.ninfo, 2u);
  pmix_release_cbfunc_t release_fn = &PmixInfos::release_cb;  // the type PMIx wants
  release_fn(h.release_cbdata);                               // frees (ASan checks)

  PmixInfos c = to_pmix(InfoList{}.add("pmix.alloc.id", std::string("a2")));
  PmixInfos::Handoff back = c.release();
  PmixInfos reclaimed = PmixInfos::reclaim(back.release_cbdata);
  EXPECT_EQ(reclaimed.data(), back.info);
  EXPECT_EQ(from_pmix(reclaimed.data(), reclaimed.size()), InfoList{}.add("pmix.alloc.id", std::string("a2")));

  pmix_info_t* made = nullptr;
  PMIX_INFO_CREATE(made, 3);
  PmixInfos adopted = PmixInfos::adopt(made, 3);
  EXPECT_EQ(adopted.size(), 3u);
  EXPECT_EQ(PmixInfos::adopt(nullptr, 5).size(), 0u);
}

}  // namespace
}  // namespace pmixflow::emul
