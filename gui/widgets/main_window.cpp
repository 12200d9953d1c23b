#include "main_window.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

#include "compare_pane.hpp"
#include "export.hpp"
#include "flow_pane.hpp"
#include "gantt_pane.hpp"
#include "machine_pane.hpp"
#include "sessions_pane.hpp"
#include "utilisation_pane.hpp"

namespace pmixflow::gui {

namespace {
// How often a followed log is read again: the simulator writes at least every 200 ms.
constexpr int kFollowMs = 250;
constexpr qint64 kQuietMs = 5000;
}  // namespace

MainWindow::MainWindow(std::unique_ptr<view::RunModel> a, std::unique_ptr<view::RunModel> b) {
  auto* central = new QWidget(this);
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Horizontal, central);
  tabs_ = new QTabWidget(split);
  auto* sessions = new SessionsPane(split);
  split->addWidget(tabs_);
  split->addWidget(sessions);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({900, 600});
  timeline_ = new Timeline(central);
  column->addWidget(split, 1);
  column->addWidget(timeline_);
  setCentralWidget(central);

  panes_ = {new MachinePane(tabs_), new FlowPane(tabs_), new GanttPane(tabs_), new UtilisationPane(tabs_), sessions};
  tabs_->addTab(panes_[0], tr("Machine"));
  tabs_->addTab(panes_[1], tr("Flow"));
  tabs_->addTab(panes_[2], tr("Gantt"));
  tabs_->addTab(panes_[3], tr("Utilisation"));
  for (auto* p : panes_) {
    connect(p, &Pane::selected, this, &MainWindow::select);
    connect(p, &Pane::seek, timeline_, &Timeline::set_time);
  }
  connect(timeline_, &Timeline::time_changed, this, &MainWindow::set_time);
  // The Gantt chart and the utilisation share one time window: zoom one, the other follows.
  auto* gantt = static_cast<GanttPane*>(panes_[2]);
  auto* utilisation = static_cast<UtilisationPane*>(panes_[3]);
  connect(gantt, &GanttPane::window_changed, utilisation, &UtilisationPane::set_window);
  connect(utilisation, &UtilisationPane::window_changed, gantt, &GanttPane::set_window);
  log_state_ = new QLabel(this);
  statusBar()->addPermanentWidget(log_state_, 1);
  build_menus();
  connect(&follow_, &QTimer::timeout, this, &MainWindow::poll_log);
  attach(std::move(a), std::move(b));
  resize(1500, 920);
}

MainWindow::~MainWindow() {
  // The panes are destroyed after the models (they are Qt children): leave them nothing to read.
  for (auto* p : panes_) p->set_model(nullptr);
  timeline_->set_model(nullptr);
}

void MainWindow::attach(std::unique_ptr<view::RunModel> a, std::unique_ptr<view::RunModel> b) {
  for (auto* p : panes_) p->set_model(nullptr);
  timeline_->set_model(nullptr);
  a_ = std::move(a);
  b_ = std::move(b);
  if (b_) {
    auto* compare = new ComparePane(b_.get(), tabs_);
    tabs_->addTab(compare, tr("Compare"));
    panes_.push_back(compare);
    connect(compare, &Pane::selected, this, &MainWindow::select);
    connect(compare, &Pane::seek, timeline_, &Timeline::set_time);
  }
  setWindowTitle(QStringLiteral("pmixflow-view — %1").arg(QString::fromStdString(a_->log_path())));
  for (auto* p : panes_) p->set_model(a_.get());
  timeline_->set_model(a_.get());
  // A followed run is shown live, at its end; a finished one from its start.
  timeline_->set_time(a_->following() ? a_->end_time() : a_->start_time());
  set_time(timeline_->time());
  if (a_->following()) {
    follow_.start(kFollowMs);
    quiet_.start();
  }
  show_log_state();
}

void MainWindow::build_menus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open run…"), QKeySequence::Open, this, &MainWindow::open_run);
  file->addAction(tr("&Export this pane…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::export_current);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  auto* time = menuBar()->addMenu(tr("&Time"));
  time->addAction(tr("Play / pause"), QKeySequence(Qt::Key_Space), this,
                  [this] { timeline_->play(!timeline_->playing()); });
  time->addAction(tr("Next event"), QKeySequence(Qt::Key_Right), this, [this] { timeline_->step(+1); });
  time->addAction(tr("Previous event"), QKeySequence(Qt::Key_Left), this, [this] { timeline_->step(-1); });
  time->addAction(tr("Next event of the chosen kind"), QKeySequence(Qt::Key_N), timeline_, &Timeline::next_of_kind);
}

Pane* MainWindow::pane(const QString& name) const {
  for (auto* p : panes_)
    if (p->pane_name() == name) return p;
  return nullptr;
}

void MainWindow::select(const Selection& s) {
  selection_ = s;
  for (auto* p : panes_) p->set_selection(s);
}

void MainWindow::set_time(double t) {
  for (auto* p : panes_) p->set_time(t);
}

void MainWindow::poll_log() {
  if (!a_) return;
  const bool at_end = timeline_->time() >= a_->end_time();
  if (a_->read_more() > 0) {
    quiet_.restart();
    for (auto* p : panes_) p->set_model(a_.get());
    timeline_->set_model(a_.get());
    if (at_end) timeline_->set_time(a_->end_time());
  }
  if (!a_->following()) follow_.stop();
  show_log_state();
}

void MainWindow::show_log_state() {
  QString text = QStringLiteral("%1 events").arg(a_->events().size());
  QString style;
  if (a_->problem()) {
    text += tr(" · the log stops at line %1: %2 (what comes before it is shown)")
                .arg(a_->problem()->line())
                .arg(QString::fromStdString(a_->problem()->what()));
    style = QStringLiteral("color: #b00020");
  } else if (a_->following() && quiet_.isValid() && quiet_.elapsed() > kQuietMs) {
    // A running simulator writes at least every 200 ms while events come: this long a silence
    // means a run that waits for a long time, or one that was stopped without its closing line.
    text += tr(" · following, but no new event for %1 s: the run is waiting, or was stopped (its log has no "
               "closing line)")
                .arg(quiet_.elapsed() / 1000);
    style = QStringLiteral("color: #b36b00");
  } else if (a_->following()) {
    text += tr(" · following: the run is still writing its log");
    style = QStringLiteral("color: #1f78b4");
  } else if (a_->complete()) {
    text += tr(" · the log has ended: the run is complete");
  }
  log_state_->setText(text);
  log_state_->setStyleSheet(style);
}

void MainWindow::export_current() {
  if (auto* p = qobject_cast<Pane*>(tabs_->currentWidget())) export_with_dialog(*p);
}

void MainWindow::open_run() {
  const auto path = QFileDialog::getOpenFileName(this, tr("Open a run's event log"), {}, tr("Event logs (*.jsonl)"));
  if (path.isEmpty()) return;
  try {
    auto model = std::make_unique<view::RunModel>(path.toStdString());
    follow_.stop();
    if (b_) {
      auto* compare = pane(QStringLiteral("compare"));
      panes_.erase(std::find(panes_.begin(), panes_.end(), compare));
      compare->set_model(nullptr);
      compare->deleteLater();
    }
    attach(std::move(model), nullptr);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Cannot open this log"), QString::fromStdString(e.what()));
  }
}

}  // namespace pmixflow::gui
