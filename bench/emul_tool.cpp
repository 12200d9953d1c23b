// bench_emul's own PMIx processes: the floor server, and the tool loop and one-shot tool that
// are run against both the floor and the emulation. Each is a child process of bench_emul: PMIx
// allows one tool per process, and a loop in a fresh process is the same for both servers.
//
// The tools are the hand tool of `pmixflow request` (emul/hand_tool.hpp), so that what differs
// between the two round trips is only what lies behind the server's allocate up-call.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "emul_bench.hpp"
#include "pmixflow/emul/compat.h"
#include "pmixflow/emul/hand_tool.hpp"
#include "pmixflow/emul/pmix_info.hpp"
#include "pmixflow/trace/info_text.hpp"

namespace pmixflow::bench {
namespace {

// Bounds the whole life of a loop's tool (HandToolOptions::timeout_s bounds attaching and every
// answer together): far above K round trips, short enough that a wedged emulation ends the run.
constexpr double kToolLifetimeS = 300;
// A daemon is in servers.json as soon as its PMIx is up, a moment before its role takes calls
// (it refuses PMIX_ERR_UNREACH until then): the first request is tried again this long.
constexpr auto kFirstCallPatience = std::chrono::seconds(30);

// The floor's up-call: the answer the emulation gives (an allocation id, a session id, a node
// list), given at once on PMIx's own thread. 4.2.2 packs the reply inside cbfunc (alloc_cbfunc in
// src/server/pmix_server.c) and touches nothing of the call once the up-call returns success, so
// answering before returning is safe and the info may live on the stack.
pmix_status_t floor_allocate(const pmix_proc_t*, pmix_alloc_directive_t directive, const pmix_info_t*, size_t,
                             pmix_info_cbfunc_t cbfunc, void* cbdata) {
  static std::atomic<std::uint32_t> next{1};
  if (directive != PMIX_ALLOC_NEW) {
    cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, nullptr, nullptr);
    return PMIX_SUCCESS;
  }
  const std::uint32_t n = next++;
  const std::string id = "floor-" + std::to_string(n);
  pmix_info_t info[3];
  for (auto& i : info) PMIX_INFO_CONSTRUCT(&i);
  PMIX_INFO_LOAD(&info[0], PMIX_ALLOC_ID, id.c_str(), PMIX_STRING);
  PMIX_INFO_LOAD(&info[1], PMIX_SESSION_ID, &n, PMIX_UINT32);
  PMIX_INFO_LOAD(&info[2], PMIX_ALLOC_NODE_LIST, "n01:1", PMIX_STRING);
  cbfunc(PMIX_SUCCESS, info, 3, cbdata, nullptr, nullptr);
  for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
  return PMIX_SUCCESS;
}

InfoList new_request() { return info_from_text({"PMIX_ALLOC_NUM_CPUS=1"}, "bench"); }

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

void print_row(const char* name, const std::vector<double>& v) {
  std::printf("%s", name);
  for (double x : v) std::printf(" %.1f", x);
  std::printf("\n");
}

// The first request, tried again while the server is not taking calls yet. Returns its answer.
emul::HandAnswer first_call(emul::HandTool& tool, const std::string& nspace) {
  const auto give_up = Clock::now() + kFirstCallPatience;
  for (;;) {
    emul::HandAnswer a = tool.call(AllocRequest{0, Directive::New, new_request(), {}, {}}, loop_corr(nspace, 1));
    if (a.status == Status::Success || Clock::now() > give_up) return a;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Releases what `a` was granted; false (said on stderr) when it cannot.
bool release(emul::HandTool& tool, const emul::HandAnswer& a, const std::string& corr) {
  const auto* id = a.info.get<std::string>(key::ALLOC_ID);
  if (!id) {
    std::fprintf(stderr, "bench: an answer without PMIX_ALLOC_ID\n");
    return false;
  }
  InfoList info;
  info.add(key::ALLOC_ID, *id);
  const emul::HandAnswer r = tool.call(AllocRequest{0, Directive::Release, info, {}, {}}, corr);
  if (r.status != Status::Success)
    std::fprintf(stderr, "bench: the release of %s: %s\n", id->c_str(), emul::status_text(r.status).c_str());
  return r.status == Status::Success;
}

}  // namespace

std::string loop_corr(const std::string& nspace, int i) { return nspace + "#" + std::to_string(i); }

int floor_server_main(const std::string& dir) {
  ::setenv("PMIX_MCA_gds", "hash", 0);  // as the emulation's servers run (conductor.cpp)
  InfoList l;
  l.add(PMIX_SERVER_TOOL_SUPPORT, true).add(PMIX_SERVER_NSPACE, std::string("floor")).add(PMIX_SERVER_RANK, 0u);
  l.add(PMIX_SERVER_TMPDIR, dir).add(PMIX_SYSTEM_TMPDIR, dir);
  emul::PmixInfos info = emul::to_pmix(l);
  pmix_server_module_t module{};
  module.allocate = &floor_allocate;
  if (const pmix_status_t rc = PMIx_server_init(&module, info.data(), info.size()); rc != PMIX_SUCCESS) {
    std::fprintf(stderr, "bench: the floor server would not start: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  // The 4.2.2 workarounds every PMIx process of the emulation makes (compat.h): without
  // TCP_NODELAY a reply can wait 40 ms for a delayed ACK, which no honest floor would.
  pmixflow_tags_apart();
  pmixflow_tcp_nodelay();
  pmix_proc_t me;
  PMIX_LOAD_PROCID(&me, "floor", 0);
  pmix_value_t* uri = nullptr;
  if (PMIx_Get(&me, PMIX_SERVER_URI, nullptr, 0, &uri) != PMIX_SUCCESS || !uri || uri->type != PMIX_STRING) {
    std::fprintf(stderr, "bench: the floor server has no URI\n");
    PMIx_server_finalize();
    return 1;
  }
  std::printf("uri %s\n", uri->data.string);
  std::fflush(stdout);
  PMIX_VALUE_RELEASE(uri);
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  PMIx_server_finalize();
  return 0;
}

int loop_main(const std::string& uri, const std::string& nspace, int k, int warmup) {
  try {
    emul::HandTool tool(emul::HandToolOptions{Proc{nspace, 0}, emul::HandServer{"", uri}, kToolLifetimeS});
    std::vector<double> news, releases;
    for (int i = 1; i <= warmup + k; ++i) {
      const auto t0 = Clock::now();
      const emul::HandAnswer a =
          i == 1 ? first_call(tool, nspace)
                 : tool.call(AllocRequest{0, Directive::New, new_request(), {}, {}}, loop_corr(nspace, i));
      const double rtt = us_since(t0);
      if (a.status != Status::Success) {
        std::fprintf(stderr, "bench: request %d: %s\n", i, emul::status_text(a.status).c_str());
        return 1;
      }
      if (i == 1) std::printf("first_ok_ns %lld\n", static_cast<long long>(Clock::now().time_since_epoch().count()));
      const auto r0 = Clock::now();
      if (!release(tool, a, nspace + "#release-" + std::to_string(i))) return 1;
      if (i > warmup) {
        news.push_back(rtt);
        releases.push_back(us_since(r0));
      }
    }
    print_row("new", news);
    print_row("release", releases);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: the loop against %s: %s\n", uri.c_str(), e.what());
    return 1;
  }
}

int one_shot_main(const std::string& uri) {
  try {
    emul::HandTool tool(
        emul::HandToolOptions{Proc{"oneshot-" + std::to_string(::getpid()), 0}, emul::HandServer{"", uri}, 30});
    const emul::HandAnswer a = tool.call(AllocRequest{0, Directive::New, new_request(), {}, {}}, "oneshot#1");
    std::printf("%s\n", emul::status_text(a.status).c_str());
    return a.status == Status::Success ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: one-shot against %s: %s\n", uri.c_str(), e.what());
    return 1;
  }
}

}  // namespace pmixflow::bench
