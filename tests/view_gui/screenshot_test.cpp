// Pictures without a screen, as documentation and CI make them: `pmixflow-view --screenshot`
// on a run of the simulator, offscreen, with no display. The pictures are not blank, every
// pane writes one, a node's cell has its state's colour (and changes colour when its state
// does), and bad input is refused with a message and a documented status.
#include <gtest/gtest.h>

#include <QImage>

#include <set>

#include "machine_pane.hpp"
#include "palette.hpp"
#include "pmixflow/view/run_model.hpp"
#include "pmixflow_run.hpp"

namespace pmixflow::gui {
namespace {

namespace fs = std::filesystem;
using test::quote;
using test::RunResult;
using test::slurp;

class ViewScreenshot : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("view");
    run_ = dir_ / "demo";
    const auto r = test::run_pmixflow({"sim", "--out", run_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs pmixflow-view as a user would on a machine with no display.
  RunResult view(const std::vector<std::string>& args) const {
    std::string cmd = "QT_QPA_PLATFORM=offscreen " + quote(PMIXFLOW_VIEW_BIN);
    for (const auto& a : args) cmd += " " + quote(a);
    cmd += " >" + quote((dir_ / "out").string()) + " 2>" + quote((dir_ / "err").string()) + " </dev/null";
    const int raw = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = slurp(dir_ / "out");
    r.err = slurp(dir_ / "err");
    return r;
  }
  QImage shot(const std::vector<std::string>& more, const std::string& name) const {
    const auto file = (dir_ / name).string();
    std::vector<std::string> args{"--screenshot", file};
    args.insert(args.end(), more.begin(), more.end());
    args.push_back(run_.string());
    const auto r = view(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return QImage(QString::fromStdString(file));
  }

  fs::path dir_, run_;
};

// How many distinct colours, and how much of the picture is not white.
std::pair<std::size_t, double> colour_census(const QImage& image) {
  std::set<QRgb> colours;
  std::size_t inked = 0;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) {
      const QRgb c = image.pixel(x, y);
      colours.insert(c);
      inked += qRed(c) < 245 || qGreen(c) < 245 || qBlue(c) < 245;
    }
  return {colours.size(), static_cast<double>(inked) / (image.width() / 2.0 * image.height() / 2.0)};
}

TEST_F(ViewScreenshot, TheDemosOverviewIsAFullPicture) {
  const auto image = shot({}, "demo.png");
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(1600, 1000));
  const auto [colours, inked] = colour_census(image);
  EXPECT_GT(colours, 30u) << "the machine's states, the sessions' colours, the flow's arrows";
  EXPECT_GT(inked, 0.10);
}

TEST_F(ViewScreenshot, WithNoRunItRunsTheDemoAndShowsIt) {
  const auto file = dir_ / "no-run.png";
  const auto r = view({"--screenshot", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same picture as of the demo's own run: the simulator is deterministic.
  EXPECT_EQ(QImage(QString::fromStdString(file.string())), shot({}, "demo.png"));
}

// The machine pane's cell for a node has the colour of that node's state at the time asked for.
TEST_F(ViewScreenshot, ANodesCellHasItsStatesColourAndChangesWithIt) {
  const QSize size(800, 500);
  const view::RunModel model(run_);
  MachinePainter layout;
  layout.layout(model, QRectF(8, 8, size.width() - 16, size.height() - 16 - MachinePainter::kLegendHeight));
  auto colour_at = [&](const QImage& image, const char* node) {
    const auto cell = layout.cell(*model.find_node(node));
    // A corner of the cell, below the session's stripe and away from the centred text.
    return QColor(
        image.pixel(QPointF(cell.left() + cell.width() * 0.1, cell.bottom() - cell.height() * 0.1).toPoint()));
  };
  const auto start = shot({"--pane", "machine", "--size", "800x500", "--at", "0"}, "start.png");
  const auto later = shot({"--pane", "machine", "--size", "800x500", "--at", "1.5"}, "later.png");
  ASSERT_FALSE(start.isNull());
  ASSERT_FALSE(later.isNull());
  EXPECT_EQ(colour_at(start, "n01"), look_colour(view::NodeLook::DaemonStarting));
  EXPECT_EQ(colour_at(start, "n05"), look_colour(view::NodeLook::OutsideDvm));
  EXPECT_EQ(colour_at(later, "n01"), look_colour(view::NodeLook::Running));
  EXPECT_EQ(colour_at(later, "n02"), look_colour(view::NodeLook::Free));
  EXPECT_EQ(colour_at(later, "n05"), look_colour(view::NodeLook::OutsideDvm));
}

TEST_F(ViewScreenshot, EveryPaneMakesAPictureInPngAndSvg) {
  for (const char* pane : {"machine", "flow", "sessions", "gantt", "utilisation"}) {
    const auto image = shot({"--pane", pane}, std::string(pane) + ".png");
    ASSERT_FALSE(image.isNull()) << pane;
    EXPECT_GT(colour_census(image).second, 0.01) << pane << " is blank";
    const auto svg = dir_ / (std::string(pane) + ".svg");
    const auto r = view({"--screenshot", svg.string(), "--pane", pane, run_.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto text = slurp(svg);
    EXPECT_NE(text.find("<svg"), std::string::npos) << pane;
    EXPECT_NE(text.find("</svg>"), std::string::npos) << pane;
  }
}

TEST_F(ViewScreenshot, BadInputIsRefusedWithItsReason) {
  auto r = view({"--screenshot", (dir_ / "x.png").string(), "--pane", "nowhere", run_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no pane named \"nowhere\""), std::string::npos) << r.err;
  r = view({"--screenshot", (dir_ / "x.png").string(), "--at", "soon", run_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--at"), std::string::npos) << r.err;
  r = view({"--screenshot", (dir_ / "x.png").string(), (dir_ / "no-such-run").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-run"), std::string::npos) << r.err;
  r = view({"--screenshot", (dir_ / "x.bmpx").string(), run_.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "x.bmpx"));
  // A cut log: what could be read is shown, and where it stops is said.
  const auto log = slurp(run_ / "events.jsonl");
  const auto cut = dir_ / "cut.jsonl";
  std::ofstream(cut) << log.substr(0, log.size() / 2);
  r = view({"--screenshot", (dir_ / "cut.png").string(), cut.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cut.jsonl:"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "cut.png"));
}

// --version as pmixflow's (the release, the commit) with the Qt the viewer runs on; the man
// page of the viewer is made from it.
TEST_F(ViewScreenshot, VersionNamesTheReleaseAndQt) {
  const auto r = view({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("pmixflow-view ") + PMIXFLOW_VERSION, 0), 0u) << r.out;
  EXPECT_NE(r.out.find(", Qt 6."), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pmixflow::gui
