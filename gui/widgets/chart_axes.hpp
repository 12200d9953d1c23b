// What the time charts (Gantt, utilisation, compare) share: a time window that zooms and pans,
// axes with ticks at round values in a unit that suits the span (s, min, h, d), and the look
// (font, colours) their pictures have on screen, in a PNG and in an SVG.
#pragma once

#include <QColor>
#include <QFont>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

class QAbstractButton;

namespace pmixflow::gui {

class Pane;

struct TimeUnit {
  double seconds = 1;
  QString name;  // "s", "min", "h", "d"
};
// The largest unit in which `span` seconds is at least two units, so that ticks are round
// numbers of it.
TimeUnit time_unit_for(double span);
// A duration for people: "45.2 s", "12 min 5 s", "3 h 20 min", "2 d 4 h".
QString format_duration(double seconds);
// A moment of the run: "3725.4 s (1 h 2 min)".
QString format_moment(double t);

// Round tick values (1, 2 or 5 times a power of ten) within [lo, hi], at most about `max_ticks`.
std::vector<double> nice_ticks(double lo, double hi, int max_ticks);

// The part of the run a chart shows: zoomed with the wheel, panned by dragging, never wider
// than the run (plus a little room) nor narrower than a millisecond.
class TimeWindow {
 public:
  double t0 = 0, t1 = 1;
  void set_limits(double lo, double hi);
  void fit() { t0 = lo_, t1 = hi_; }
  void set(double from, double to);
  // `factor` < 1 zooms in, keeping the moment `about` where it is.
  void zoom(double factor, double about);
  void pan(double dt);
  double span() const { return t1 - t0; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  double x_of(double t, const QRectF& plot) const { return plot.left() + (t - t0) / span() * plot.width(); }
  double t_of(double x, const QRectF& plot) const { return t0 + (x - plot.left()) / plot.width() * span(); }

 private:
  void clamp();
  double lo_ = 0, hi_ = 1;
};

// A drag along the time axis: pans a TimeWindow once the pointer has gone 3 pixels, so that a
// click stays a click.
class TimeDrag {
 public:
  void press(QPointF at, const TimeWindow& w);
  // While the button is down: pans `w` over a plot `plot_width` wide; true when it moved.
  bool move(QPointF at, double plot_width, TimeWindow& w);
  // The button is up: true when it was a click rather than a drag.
  bool release();
  bool pressed() const { return from_.has_value(); }

 private:
  std::optional<QPointF> from_;
  double t0_ = 0, span_ = 0;
  bool moved_ = false;
};

// A time chart's two buttons in its top right corner: "Fit" (show the whole run, calling
// `fit`) and "Export…". Placed by place() whenever the chart is resized.
class ChartButtons {
 public:
  ChartButtons(Pane& chart, std::function<void()> fit);
  void place(int chart_width);
  void set_visible(bool visible);

 private:
  QAbstractButton* fit_ = nullptr;
  QAbstractButton* export_ = nullptr;
};

// The look every chart's picture shares.
namespace chart {
QFont font();  // the labels'
QFont title_font();
inline const QColor kAxis{0x40, 0x40, 0x40};
inline const QColor kGrid{0xe4, 0xe4, 0xe4};
inline const QColor kText{0x20, 0x20, 0x20};
inline const QColor kMarker{0xd0, 0x30, 0x20};  // the current time
inline const QColor kSelection{0x10, 0x10, 0x10};
inline constexpr double kLeft = 64, kRight = 16, kTop = 30, kBottom = 44;  // margins around a plot
}  // namespace chart

// Ticks, labels and "time (unit)" under `plot`; light grid lines across it when `grid`.
void draw_time_axis(QPainter& p, const QRectF& plot, const TimeWindow& w, bool labels, bool grid);
// Ticks and labels of the values [v0, v1] at the left of `plot` (v0 at the bottom), the title
// turned along the axis; `label` formats a tick value.
void draw_value_axis(QPainter& p, const QRectF& plot, double v0, double v1, const QString& title,
                     const std::function<QString(double)>& label, bool grid, bool integers);
// The current time T as a vertical line across `plot`, when it is within the window.
void draw_time_marker(QPainter& p, const QRectF& plot, const TimeWindow& w, double t);
// The chart's title at the top left of `area`.
void draw_title(QPainter& p, const QRectF& area, const QString& title);

}  // namespace pmixflow::gui
