// The viewer where there is no display (a server, CI, ssh without X): --help and --version are
// answered, --screenshot renders offscreen by itself, and the window it cannot open is refused
// with exit 1 and how to make a picture instead - never Qt's abort (exit 134).
#include <gtest/gtest.h>

#include <QImage>

#include "pmixflow_run.hpp"

namespace pmixflow::gui {
namespace {

namespace fs = std::filesystem;
using test::quote;
using test::RunResult;
using test::slurp;

class ViewWithoutDisplay : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("nodisplay"); }
  void TearDown() override { fs::remove_all(dir_); }

  // pmixflow-view with no display and no platform chosen (the tests' own offscreen one unset).
  RunResult view(const std::vector<std::string>& args) const {
    std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM " + quote(PMIXFLOW_VIEW_BIN);
    for (const auto& a : args) cmd += " " + quote(a);
    cmd += " >" + quote((dir_ / "out").string()) + " 2>" + quote((dir_ / "err").string()) + " </dev/null";
    const int raw = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = slurp(dir_ / "out");
    r.err = slurp(dir_ / "err");
    return r;
  }

  fs::path dir_;
};

TEST_F(ViewWithoutDisplay, HelpAndVersionAreAnswered) {
  auto r = view({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--screenshot"), std::string::npos) << r.out;
  r = view({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("pmixflow-view ") + PMIXFLOW_VERSION, 0), 0u) << r.out;
  r = view({"--no-such-option"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(ViewWithoutDisplay, AScreenshotIsRenderedOffscreenByItself) {
  const fs::path run = dir_ / "demo";
  ASSERT_EQ(test::run_pmixflow({"sim", "--quiet", "--out", run.string()}).exit_code, 0);
  const auto file = (dir_ / "demo.png").string();
  const auto r = view({"--screenshot", file, run.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const QImage image(QString::fromStdString(file));
  EXPECT_FALSE(image.isNull());
}

TEST_F(ViewWithoutDisplay, AWindowIsRefusedWithHowToMakeAPicture) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{}, std::vector<std::string>{"run"}}) {
    const auto r = view(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("pmixflow-view: no display to show a window on"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--screenshot FILE.png"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace pmixflow::gui
