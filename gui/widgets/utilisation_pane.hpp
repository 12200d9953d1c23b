// How busy the machine was and how long the queue: two step charts on one time axis, the
// slots held by granted allocations as a share of the machine above, the requests waiting in
// the scheduler's queue below. The current time is marked; a click goes there; the wheel zooms
// and a drag pans, as in the Gantt chart.
#pragma once

#include <QPolygonF>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "chart_axes.hpp"
#include "pane.hpp"

class QAbstractButton;

namespace pmixflow::gui {

class UtilisationPane : public Pane {
  Q_OBJECT
 public:
  explicit UtilisationPane(QWidget* parent = nullptr);

  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return "utilisation"; }

  const TimeWindow& window() const { return window_; }
  // Does not emit window_changed: it is how a chart that follows another is told.
  void set_window(double t0, double t1);
  void fit_window();

 signals:
  void window_changed(double t0, double t1);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  struct Plots {
    QRectF used, queue;
  };
  Plots plots(QSizeF size) const;
  void paint_chart(QPainter& p, QSizeF size);
  void paint_readout(QPainter& p, QSizeF size);
  void paint_selection(QPainter& p, const Plots& at);
  // The series as a step chart over `plot`, its values times `scale` against [0, top]: the
  // area under it (`area`) or its outline.
  void paint_series(QPainter& p, const QRectF& plot, const view::StepSeries& s, double scale, double top,
                    const QColor& colour, bool area);
  void step_outline(const QRectF& plot, const view::StepSeries& s, double scale, double top);
  void column_means(const view::StepSeries& s, double from, double to, int columns);
  QString describe(double t) const;
  double used_share(double t) const;
  double queue_top() const;
  void window_moved();

  const view::RunModel* model_ = nullptr;
  double now_ = 0;
  std::uint32_t selected_ = view::kNone;
  TimeWindow window_;
  std::unique_ptr<ChartButtons> buttons_;
  TimeDrag drag_;
  // Kept from frame to frame: painting allocates nothing once they have grown.
  QPolygonF outline_;
  std::vector<double> columns_;
};

}  // namespace pmixflow::gui
