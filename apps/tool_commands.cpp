// `pmixflow request`, `pmixflow session` and `pmixflow spawn`: requestors a person runs by hand
// against a running emulation (`pmixflow emul --hold`). Each makes one PMIx call through the
// emulation's server it is told (emul/hand_tool.hpp), with attributes written as a scenario
// file writes them (trace/info_text.hpp), and shows the answer with PMIx's names
// (tool_output.hpp). Exit status: 0 the call succeeded, 1 it was answered with an error, not
// answered in time, or the server could not be reached, 2 bad input (kBadInput), 130 stopped by
// Ctrl-C while waiting (what it started is cleaned up first).
#include <unistd.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "number_options.hpp"
#include "option_rules.hpp"
#include "pmixflow/emul/directory.hpp"
#include "pmixflow/emul/hand_tool.hpp"
#include "pmixflow/trace/info_text.hpp"
#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/near_miss.hpp"
#include "pmixflow/vocab/numbers.hpp"
#include "pmixflow/vocab/quote.hpp"
#include "tool_output.hpp"

namespace pmixflow::cli {
namespace {

constexpr int kNotDone = 1;
constexpr int kInterrupted = 130;  // as a shell reports a command ended by Ctrl-C

std::string hint(Status s) {
  switch (s) {
    case Status::ErrNoPermissions:
      return "this user's tools are not let in (pmixflow emul --allow-user), or the session is not yours";
    case Status::ErrNotFound: return "no such allocation, request or session";
    case Status::ErrUnreach: return "the party could not reach who decides (is a scheduler attached? is it up?)";
    case Status::ErrBadParam: return "the call was refused as given";
    case Status::ErrJobAllocFailed: return "the allocation was refused: nothing was launched";
    default: return "";
  }
}

// Where the call goes and how its answer is shown: the options every hand tool takes.
struct Target {
  std::string emulation, uri, via = "controller", as;
  double timeout_s = 30;
  bool json = false;

  void add_to(CLI::App& app, OptionRules& rules) {
    app.add_option("--emulation", emulation,
                   "The directory of a running emulation, as `pmixflow emul --hold` prints it (its servers.json "
                   "names each server). Default: $PMIXFLOW_EMULATION.")
        ->envname("PMIXFLOW_EMULATION");
    auto* uri_opt = app.add_option("--uri", uri, "A server's PMIX_SERVER_URI (\"prte.0;tcp4://127.0.0.1:PORT\").");
    auto* via_opt =
        app.add_option("--via", via, "The emulation's server to call: controller, scheduler or daemon:NODE.")
            ->capture_default_str();
    rules.excludes(uri_opt, via_opt, "a URI names one server already");  // and --uri wins over --emulation
    app.add_option("--as", as, "The tool's PMIx namespace (default: the command and its pid, e.g. request-4242).");
    add_real(app, "--timeout", timeout_s, 0.001, kMaxSeconds, "Seconds to wait for the server and its answer.")
        ->default_str(number_text(timeout_s));
    app.add_flag("--json", json, "Print the answer as one JSON object.");
  }

  emul::HandServer server() const {
    if (!uri.empty()) return emul::HandServer{"", uri};
    if (emulation.empty())
      throw InputError("", 0, "", "give --emulation DIR (pmixflow emul --hold prints it) or --uri URI");
    const bool known = via == "controller" || via == "scheduler" || (via.rfind("daemon:", 0) == 0 && via.size() > 7);
    if (!known)
      throw InputError("", 0, "", "--via expects controller, scheduler or daemon:NODE, got " + quote_value(via));
    return emul::server_of_emulation(emulation, via);
  }
};

// --app 'CMD ARGS' --np N --runtime S
struct AppOptions {
  std::string command;
  std::uint32_t np = 1;
  double runtime_s = 0;
  CLI::Option* app_opt = nullptr;
  CLI::Option* np_opt = nullptr;
  CLI::Option* runtime_opt = nullptr;

  void add_to(CLI::App& app, OptionRules& rules, const std::string& what) {
    app_opt = app.add_option("--app", command,
                             what +
                                 ": 'CMD ARGS' (`sleep 30` runs 30 s; another command needs --runtime), or a "
                                 "scenario's JSON app or array of apps.");
    np_opt = add_whole<std::uint32_t>(app, "--np", np, 1, UINT32_MAX, "Processes of the app.");
    rules.needs(np_opt, app_opt, "it counts the processes of the app --app gives");
    runtime_opt = add_real(app, "--runtime", runtime_s, 0.0, kMaxSeconds,
                           "Seconds the app runs (a command other than `sleep N`).");
    rules.needs(runtime_opt, app_opt, "it is how long the app --app gives runs");
  }
  bool given() const { return app_opt->count() > 0; }
  std::vector<App> apps() const {
    std::optional<std::uint32_t> n;
    std::optional<double> r;
    if (np_opt->count()) n = np;
    if (runtime_opt->count()) r = runtime_s;
    return apps_from_text(command, n, r, "");
  }
};

Directive directive_of(const std::string& text) {
  if (const auto d = parse_directive(text)) return *d;
  // Suggested as written: with the prefix when it was given, without it when it was not.
  const bool prefixed = text.starts_with("PMIX_ALLOC_");
  std::vector<std::string> names;
  for (const Directive d : {Directive::New, Directive::Extend, Directive::Release, Directive::Reaquire,
                            Directive::ReqCancel, Directive::Activate})
    names.emplace_back(directive_name(d).substr(prefixed ? 0 : std::string_view("PMIX_ALLOC_").size()));
  throw InputError("", 0, "",
                   "unknown directive " + quote_value(text) + did_you_mean(text, names) +
                       " (PMIX_ALLOC_NEW, _EXTEND, _RELEASE, _REAQUIRE, _REQ_CANCEL, _ACTIVATE; the prefix may "
                       "be left out)");
}

void print_answer(const Target& t, Status status, const InfoList& info, bool timed_out, const std::string& error) {
  if (!t.json) {
    if (!timed_out && error.empty()) std::cout << answer_line(status, info) << "\n";
    return;
  }
  auto j = answer_json(status, info);
  if (timed_out) j["timed_out"] = true;
  if (!error.empty()) j["error"] = error;
  std::cout << j.dump() << "\n";
}

// Attaches, calls, shows the answer; the exit status.
int run_call(const std::string& command, const Target& t, const Call& call, const std::string& what) {
  const emul::HandServer server = t.server();
  const std::string where = server.party.empty() ? server.uri : server.party;
  const Proc me{t.as.empty() ? command + "-" + std::to_string(::getpid()) : t.as, 0};
  // The parties' own namespaces would make this tool pass for the RM or the scheduler.
  if (me.nspace.size() > 255 || me.nspace == emul::kDvmNspace || me.nspace == emul::kSchedulerNspace)
    throw InputError("", 0, "", "--as expects a namespace of at most 255 characters, not prte or scheduler");
  const std::string prefix = message_prefix(command);
  emul::HandAnswer a;
  try {
    emul::HandTool tool(emul::HandToolOptions{me, server, t.timeout_s});
    a = tool.call(call, me.nspace + "#1");
  } catch (const emul::HandToolStopped&) {
    std::cerr << prefix << "interrupted: " << what << " through " << where << " left unanswered\n";
    return kInterrupted;
  } catch (const emul::HandToolError& e) {
    const std::string msg = where + ": " + e.what() + ": " + emul::status_text(e.status());
    print_answer(t, e.status(), {}, false, msg);
    std::cerr << prefix << msg << ": is the emulation still up, its party not stopped?\n";
    return kNotDone;
  }
  if (a.timed_out) {
    print_answer(t, a.status, a.info, true, "no answer within the timeout");
    std::cerr << prefix << "no answer to " << what << " through " << where << " within " << t.timeout_s
              << " s (--timeout)\n";
    return kNotDone;
  }
  print_answer(t, a.status, a.info, false, "");
  if (a.status == Status::Success || a.status == Status::OperationSucceeded) return 0;
  const std::string h = hint(a.status);
  std::cerr << prefix << emul::status_text(a.status) << ": " << what << " through " << where << " was refused"
            << (h.empty() ? "" : ": " + h) << "\n";
  return kNotDone;
}

// Bad input says so and exits kBadInput; what else goes wrong here (no temporary directory) is
// the machine's, not the input's.
int tool_guarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << message_prefix(command) << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << message_prefix(command) << e.what() << "\n";
    return kNotDone;
  }
}

class RequestCommand final : public Command {
 public:
  explicit RequestCommand(CLI::App& app) {
    target_.add_to(app, rules_);
    app.add_option("directive", directive_,
                   "PMIX_ALLOC_NEW, _EXTEND, _RELEASE, _REAQUIRE, _REQ_CANCEL, _ACTIVATE (or NEW...).")
        ->required();
    app.add_option("attributes", attributes_, "KEY=VALUE: PMIx attributes by PMIX_ name or pmix.* key string.");
    app_.add_to(app, rules_, "The job carried as PMIX_SESSION_APP");
    rules_.check_after_parsing(app);
  }
  int run() override {
    return tool_guarded("request", [&] {
      AllocRequest req;
      req.directive = directive_of(directive_);
      req.info = info_from_text(attributes_, "");
      if (app_.given()) req.info.add(key::SESSION_APP, app_.apps());
      return run_call("request", target_, req,
                      "PMIx_Allocation_request(" + std::string(directive_name(req.directive)) + ")");
    });
  }

 private:
  OptionRules rules_;
  Target target_;
  AppOptions app_;
  std::string directive_;
  std::vector<std::string> attributes_;
};

class SessionCommand final : public Command {
 public:
  explicit SessionCommand(CLI::App& app) {
    target_.add_to(app, rules_);
    app.add_option("--session", session_, "The session's id, or all (every session you control).")->required();
    app.add_option("operation", operation_,
                   "PAUSE, RESUME, TERMINATE, PREEMPT, RESTORE, SIGNAL=N, EXTEND, SEP... (PMIX_SESSION_ names too).")
        ->required();
    app.add_option("attributes", attributes_, "KEY=VALUE: more directives (PMIX_ALLOC_TIME=1:00:00, PMIX_NSPACE=...).");
    app_.add_to(app, rules_, "A job carried as PMIX_SESSION_APP");
    rules_.check_after_parsing(app);
  }
  int run() override {
    return tool_guarded("session", [&] {
      SessionCtrlRequest req;
      req.session_id = session_id();
      std::vector<std::string> all{operation_directive()};
      all.insert(all.end(), attributes_.begin(), attributes_.end());
      req.directives = info_from_text(all, "");
      if (app_.given()) req.directives.add(key::SESSION_APP, app_.apps());
      const std::string id = req.session_id == kAllSessions ? "all" : std::to_string(req.session_id);
      return run_call("session", target_, req, "PMIx_Session_control(" + id + ", " + all.front() + ")");
    });
  }

 private:
  std::uint32_t session_id() const {
    if (session_ == "all") return kAllSessions;
    const auto id = parse_whole<std::uint32_t>(session_);
    if (!id || *id == kAllSessions)
      throw InputError("", 0, "", "--session expects a session id or all, got " + quote_value(session_));
    return *id;
  }
  // OPERATION[=VALUE] as the directive it names: PMIX_SESSION_SIGNAL=10, PMIX_SESSION_PAUSE=true.
  std::string operation_directive() const {
    const auto eq = operation_.find('=');
    const auto op = parse_session_op(operation_.substr(0, eq));
    if (!op)
      throw InputError("", 0, "",
                       "unknown session operation '" + operation_ +
                           "' (PAUSE, RESUME, TERMINATE, PREEMPT, RESTORE, SIGNAL=N, EXTEND, SEP, INSTANTIATE, "
                           "COMPLETE; the PMIX_SESSION_ prefix may be left out)");
    if (eq != std::string::npos) return std::string(session_op_name(*op)) + operation_.substr(eq);
    if (*op == SessionOp::Signal) throw InputError("", 0, "", "SIGNAL needs its signal number: SIGNAL=N");
    return std::string(session_op_name(*op)) + "=true";
  }

  OptionRules rules_;
  Target target_;
  AppOptions app_;
  std::string session_, operation_;
  std::vector<std::string> attributes_;
};

class SpawnCommand final : public Command {
 public:
  explicit SpawnCommand(CLI::App& app) {
    target_.add_to(app, rules_);
    app_.add_to(app, rules_, "The job to launch");
    rules_.check_after_parsing(app);
    app_.app_opt->required();
    app.add_option("attributes", attributes_, "KEY=VALUE: the job's info (PMIX_SESSION_ID=N spawns into a session).");
    app.add_option("--alloc", alloc_,
                   "DIRECTIVE KEY=VALUE...: carry PMIX_SPAWN_ALLOC, the allocation served before the launch (the "
                   "rest of the command line belongs to it).")
        ->expected(1, -1);
  }
  int run() override {
    return tool_guarded("spawn", [&] {
      SpawnRequest req;
      req.apps = app_.apps();
      req.job_info = info_from_text(attributes_, "");
      std::string what = "PMIx_Spawn";
      if (!alloc_.empty()) {
        InfoList alloc;
        const Directive d = directive_of(alloc_.front());
        alloc.add(key::ALLOC_REQ_DIRECTIVE, d);
        const InfoList rest = info_from_text({alloc_.begin() + 1, alloc_.end()}, "");
        alloc.items.insert(alloc.items.end(), rest.items.begin(), rest.items.end());
        req.job_info.add(key::SPAWN_ALLOC, std::move(alloc));
        what += "+" + std::string(directive_name(d));
      }
      return run_call("spawn", target_, req, what);
    });
  }

 private:
  OptionRules rules_;
  Target target_;
  AppOptions app_;
  std::vector<std::string> attributes_, alloc_;
};

}  // namespace

std::unique_ptr<Command> add_request(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("request",
                           "PMIx_Allocation_request by hand, to a running emulation (pmixflow emul --hold): "
                           "request [--emulation DIR | --uri URI] [--via controller|scheduler|daemon:NODE] DIRECTIVE "
                           "[KEY=VALUE...]");
  return std::make_unique<RequestCommand>(*sub);
}

std::unique_ptr<Command> add_session(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("session",
                           "PMIx_Session_control by hand, to a running emulation: session [--emulation DIR | --uri "
                           "URI] [--via ...] --session ID|all OPERATION [KEY=VALUE...]");
  return std::make_unique<SessionCommand>(*sub);
}

std::unique_ptr<Command> add_spawn(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("spawn",
                           "PMIx_Spawn by hand, to a running emulation: spawn [--emulation DIR | --uri URI] [--via "
                           "...] --app 'CMD ARGS' [--np N] [KEY=VALUE...] [--alloc DIRECTIVE KEY=VALUE...]");
  return std::make_unique<SpawnCommand>(*sub);
}

}  // namespace pmixflow::cli
