// The jobs over the machine's resources and time, as evalys draws Batsim's jobs.csv: time
// across, resource ids up (0 at the bottom), one rectangle per contiguous range of slots of
// every stretch a job ran, in a pastel colour of its own. Preempted stretches are hatched,
// killed or failed ones outlined in red. The wheel zooms the time axis, a drag pans it, a click
// picks a job, a double click moves the current time there.
#pragma once

#include <QRgb>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chart_axes.hpp"
#include "pane.hpp"

class QAbstractButton;

namespace pmixflow::gui {

// A job's colour, the same in every run and every chart: a pastel hue drawn from its id.
QColor job_colour(const std::string& corr);

class GanttPane : public Pane {
  Q_OBJECT
 public:
  explicit GanttPane(QWidget* parent = nullptr);

  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return "gantt"; }

  // Replaces the title made from the log's inputs ("golden.swf, easy: 148 jobs, 32 slots").
  void set_title(const QString& title);
  QString title() const { return title_.isEmpty() ? auto_title_ : title_; }
  // Only the requests flagged 1 in colour, the others grey (the compare pane's moved jobs);
  // empty: every job in colour.
  void set_emphasis(std::vector<std::uint8_t> flags);
  // The span the window may show, instead of the model's own (two runs on one axis).
  void set_time_limits(double lo, double hi);
  const TimeWindow& window() const { return window_; }
  // Does not emit window_changed: it is how charts that follow each other are told.
  void set_window(double t0, double t1);
  void fit_window();
  // Pans, keeping the zoom, so that the request's first stretch is in view.
  void reveal(std::uint32_t request);
  void set_buttons_visible(bool visible);

 signals:
  // The user zoomed or panned.
  void window_changed(double t0, double t1);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  // One rectangle: a contiguous range of slots of one execution.
  struct Bar {
    double start = 0, end = 0;
    std::uint32_t lo = 0, hi = 0;  // resource ids, inclusive
    std::uint32_t request = view::kNone;
    std::uint32_t execution = view::kNone;
    std::uint8_t marks = 0;  // kPreempted | kFailed | kOpen
  };
  static constexpr std::uint8_t kPreempted = 1, kFailed = 2, kOpen = 4;

  void rebuild();
  void rebuild_looks();
  QString default_title() const;
  QRectF plot_rect(QSizeF size) const;
  QRectF bar_rect(const Bar& b, const QRectF& plot) const;
  double resource_at(double y, const QRectF& plot) const;
  template <class F>
  void for_visible(double t0, double t1, F&& f) const;
  void paint_chart(QPainter& p, QSizeF size);
  void paint_rows(QPainter& p, const QRectF& plot);
  void paint_bars(QPainter& p, const QRectF& plot);
  void paint_overlays(QPainter& p, const QRectF& plot);
  void paint_legend(QPainter& p, QSizeF size);
  std::optional<std::size_t> bar_at(QPointF pos) const;
  QString describe(const Bar& b) const;
  bool emphasised(std::uint32_t request) const;
  void window_moved();

  const view::RunModel* model_ = nullptr;
  std::vector<Bar> bars_;          // by start
  std::vector<double> reach_;      // the running maximum of the bars' ends: skips what ended before the window
  std::vector<QRgb> fill_, edge_;  // per request
  std::vector<QString> labels_;    // per request
  std::vector<float> label_widths_;
  std::vector<std::uint8_t> emphasis_;
  std::vector<std::uint32_t> node_edges_;  // the first slot id of every node but the first
  std::vector<std::size_t> overlay_;       // this frame's visible bars that need a second pass
  std::uint64_t resources_ = 0;
  bool any_preempted_ = false, any_failed_ = false;
  std::uint32_t selected_ = view::kNone;
  double now_ = 0;
  TimeWindow window_;
  std::optional<std::pair<double, double>> limits_;
  QString title_, auto_title_;
  std::unique_ptr<ChartButtons> buttons_;
  TimeDrag drag_;
};

}  // namespace pmixflow::gui
