// pmixflow-view: shows a run of pmixflow (the simulator or the emulator) from its event log.
//
//   pmixflow-view                      runs the simulator's demo and shows it
//   pmixflow-view RUN                  a run directory or an events.jsonl
//   pmixflow-view RUN_A RUN_B          two runs of one workload, with the jobs that moved
//   pmixflow-view --follow RUN         a run still being written
//   pmixflow-view --screenshot F.png [--at T] [--pane P] [--size WxH] [--request CORR] [--session-id ID] RUN
//
// Exit status: 0 done; 1 a log that cannot be read at all, the demo that cannot run, a
// request or session the log does not have, a picture that cannot be written, or a window with
// no display to show it on; 2 a usage error.
//
// Only a window needs a display: --help, --version and usage errors are answered without one,
// and --screenshot renders offscreen, as the docs' pictures are made.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "main_window.hpp"
#include "pmixflow/log/run_files.hpp"
#include "screenshot.hpp"
#include "version.hpp"

namespace {

using pmixflow::view::RunModel;

int usage_error(const QString& message) {
  std::fprintf(stderr, "pmixflow-view: %s (see pmixflow-view --help)\n", qPrintable(message));
  return 2;
}

// The demo: the simulator beside this program runs it into a directory that lives as long as
// the viewer.
std::optional<QString> run_demo(QTemporaryDir& dir) {
  const QString pmixflow = QDir(QCoreApplication::applicationDirPath()).filePath("pmixflow");
  QProcess sim;
  sim.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  sim.start(pmixflow, {"sim", "--out", dir.filePath("demo")});
  if (!sim.waitForFinished(120000) || sim.exitStatus() != QProcess::NormalExit || sim.exitCode() != 0) {
    std::fprintf(stderr, "pmixflow-view: could not run the demo with %s: %s\n", qPrintable(pmixflow),
                 qPrintable(sim.errorString()));
    return std::nullopt;
  }
  return dir.filePath("demo");
}

std::unique_ptr<RunModel> open_run(const QString& path, bool follow) {
  try {
    auto model = std::make_unique<RunModel>(path.toStdString(), pmixflow::view::OpenOptions{.follow = follow});
    if (model->problem())
      std::fprintf(stderr, "pmixflow-view: warning: %s (what comes before it is shown)\n", model->problem()->what());
    return model;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pmixflow-view: %s\n", e.what());
    return nullptr;
  }
}

std::optional<QSize> parse_size(const QString& text) {
  const auto parts = text.split('x');
  bool w_ok = false, h_ok = false;
  if (parts.size() != 2) return std::nullopt;
  const int w = parts[0].toInt(&w_ok), h = parts[1].toInt(&h_ok);
  if (!w_ok || !h_ok || w < 100 || h < 100 || w > 20000 || h > 20000) return std::nullopt;
  return QSize(w, h);
}

int screenshot(const QCommandLineParser& args, const RunModel& a, const RunModel* b) {
  pmixflow::gui::ScreenshotRequest r;
  r.file = args.value("screenshot");
  if (args.isSet("pane")) r.pane = args.value("pane");
  if (args.isSet("at")) {
    bool ok = false;
    r.at = args.value("at").toDouble(&ok);
    if (!ok || !std::isfinite(*r.at))
      return usage_error("--at expects a time in seconds, not \"" + args.value("at") + "\"");
  }
  if (args.isSet("size")) {
    const auto size = parse_size(args.value("size"));
    if (!size)
      return usage_error("--size expects WIDTHxHEIGHT between 100 and 20000, not \"" + args.value("size") + "\"");
    r.size = *size;
  }
  r.request = args.value("request").toStdString();
  if (args.isSet("session-id")) {
    bool ok = false;
    r.session = args.value("session-id").toUInt(&ok);
    if (!ok) return usage_error("--session-id expects a session id, not \"" + args.value("session-id") + "\"");
  }
  if (!pmixflow::gui::pane_names(b).contains(r.pane))
    return usage_error("--pane: no pane named \"" + r.pane + "\" (one of: " + pmixflow::gui::pane_names(b).join(", ") +
                       ")");
  QString error;
  if (!pmixflow::gui::take_screenshot(a, b, r, &error)) {
    std::fprintf(stderr, "pmixflow-view: %s\n", qPrintable(error));
    return 1;
  }
  return 0;
}

// The command line, and the version it reports: pmixflow's, with the Qt it runs on.
void describe(QCommandLineParser& args) {
  const std::string version = pmixflow::version::version_text("pmixflow-view", "Qt " QT_VERSION_STR);
  QApplication::setApplicationVersion(QString::fromStdString(version).mid(QStringLiteral("pmixflow-view ").size()));
  args.setApplicationDescription(
      "Shows a pmixflow run from its event log: the machine, the sessions, the flow of requests, the jobs over time.\n"
      "With no RUN, runs the simulator's demo and shows it. A window needs a display; --screenshot does not.\n"
      "Exit status: 0 done, 1 the demo that cannot run, a picture that cannot be written or no display for a "
      "window, 2 usage error or a log that cannot be read.");
  args.addHelpOption();
  args.addVersionOption();
  args.addPositionalArgument("RUN", "A run directory (its events.jsonl) or an event log.", "[RUN]");
  args.addPositionalArgument("RUN_B", "A second run of the same workload: shows the jobs that moved.", "[RUN_B]");
  args.addOptions(
      {{"follow", "Show a run whose log is still being written, and say when it ends or is cut."},
       {"screenshot", "Render a picture (.png or .svg) and exit, with no window.", "FILE"},
       {"at", "With --screenshot: the time shown, in seconds (default: the moment with most sessions).", "T"},
       {"pane", "With --screenshot: overview, machine, flow, sessions, gantt, utilisation or compare.", "PANE"},
       {"size", "With --screenshot: the picture's size (default 1600x1000).", "WxH"},
       {"request", "With --screenshot: select this request (its corr, e.g. alice#1): the flow shows its path.", "CORR"},
       // Not --session: QApplication takes that one for X11 session management.
       {"session-id", "With --screenshot: select this session (its id): its nodes are outlined.", "ID"}});
}

// The options that do not go together, or one run too many: exit 2, with or without a display.
std::optional<int> refuse_usage(const QCommandLineParser& args) {
  const auto runs = args.positionalArguments();
  if (runs.size() > 2) return usage_error("at most two runs, not " + QString::number(runs.size()));
  const bool shooting = args.isSet("screenshot");
  for (const char* only : {"at", "pane", "size", "request", "session-id"})
    if (args.isSet(only) && !shooting) return usage_error(QString("--%1 goes with --screenshot").arg(only));
  if (args.isSet("follow") && (shooting || runs.size() != 1))
    return usage_error("--follow shows one run in a window, not with --screenshot");
  return std::nullopt;
}

bool set(const char* variable) {
  const char* value = std::getenv(variable);
  return value && *value;
}

// What a word of the command line asks before anything is parsed: whether a window, a picture,
// or only words (help, version) are wanted decides which application there can be.
bool asks_for(int argc, char** argv, std::initializer_list<const char*> options) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    for (const char* option : options)
      if (std::strncmp(argv[i], option, std::strlen(option)) == 0 &&
          (argv[i][std::strlen(option)] == '\0' || argv[i][std::strlen(option)] == '='))
        return true;
  }
  return false;
}

// Without a display (and no platform chosen): only words, or a picture rendered offscreen.
int without_display(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName("pmixflow-view");
  QCommandLineParser args;
  describe(args);
  const bool parsed = args.parse(QCoreApplication::arguments());
  if (args.isSet("help") || args.isSet("help-all")) args.showHelp(0);
  if (args.isSet("version")) args.showVersion();
  if (!parsed) return usage_error(args.errorText());
  if (const auto refused = refuse_usage(args)) return *refused;
  std::fprintf(stderr,
               "pmixflow-view: no display to show a window on (DISPLAY and WAYLAND_DISPLAY are unset): make a "
               "picture instead, pmixflow-view --screenshot FILE.png [--pane PANE] [RUN] (no display needed), or "
               "run it where there is a screen\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool words_only = asks_for(argc, argv, {"--help", "-h", "--help-all", "--version", "-v"});
  const bool picture = asks_for(argc, argv, {"--screenshot"});
  // A picture is rendered offscreen whatever the screen, as the docs' are, unless a platform is chosen.
  if (picture && !words_only && !set("QT_QPA_PLATFORM")) ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  if (words_only || (!set("DISPLAY") && !set("WAYLAND_DISPLAY") && !set("QT_QPA_PLATFORM")))
    return without_display(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName("pmixflow-view");
  QCommandLineParser args;
  describe(args);
  if (!args.parse(QApplication::arguments())) return usage_error(args.errorText());
  if (args.isSet("help")) args.showHelp(0);
  if (args.isSet("version")) args.showVersion();
  if (const auto refused = refuse_usage(args)) return *refused;
  const auto runs = args.positionalArguments();
  const bool shooting = args.isSet("screenshot");

  QTemporaryDir demo_dir;
  QString first = runs.value(0);
  if (runs.isEmpty()) {
    const auto demo = run_demo(demo_dir);
    if (!demo) return 1;
    first = *demo;
  }
  const bool follow = args.isSet("follow");
  if (follow) {
    // The run may not have written its header yet: wait for it, as `tail -F` would.
    std::fprintf(stderr, "pmixflow-view: waiting for %s to start its log…\n", qPrintable(first));
    try {
      while (!pmixflow::log::log_started(first.toStdString())) QThread::msleep(200);
    } catch (const std::exception& e) {  // a named pipe, say: nothing to wait for
      std::fprintf(stderr, "pmixflow-view: %s\n", e.what());
      return 2;
    }
  }
  auto a = open_run(first, follow);
  if (!a) return 2;
  std::unique_ptr<RunModel> b;
  if (runs.size() == 2 && !(b = open_run(runs[1], false))) return 2;
  if (shooting) return screenshot(args, *a, b.get());
  pmixflow::gui::MainWindow window(std::move(a), std::move(b));
  window.show();
  return QApplication::exec();
}
