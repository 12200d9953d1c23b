// The viewer's window: the panes around one run (and a second one to compare with), the
// timeline that drives them, and the log's own state in the status bar - still being written,
// ended, or cut at a line.
#pragma once

#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QTabWidget>
#include <QTimer>

#include <filesystem>
#include <memory>
#include <vector>

#include "pane.hpp"
#include "timeline.hpp"

namespace pmixflow::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `b` (may be null): a second run of the same workload, compared in its own pane.
  MainWindow(std::unique_ptr<view::RunModel> a, std::unique_ptr<view::RunModel> b = nullptr);
  ~MainWindow() override;
  Timeline& timeline() { return *timeline_; }
  // The pane named `name` ("machine", "flow", ...), or nullptr.
  Pane* pane(const QString& name) const;

 private:
  void build_menus();
  void select(const Selection& s);
  void set_time(double t);
  void poll_log();
  void show_log_state();
  void export_current();
  void open_run();
  void attach(std::unique_ptr<view::RunModel> a, std::unique_ptr<view::RunModel> b);

  std::unique_ptr<view::RunModel> a_, b_;
  std::vector<Pane*> panes_;
  QTabWidget* tabs_ = nullptr;
  Timeline* timeline_ = nullptr;
  QLabel* log_state_ = nullptr;
  QTimer follow_;
  QElapsedTimer quiet_;  // since the followed log last grew
  Selection selection_;
};

}  // namespace pmixflow::gui
