#include "chart_axes.hpp"

#include <QToolButton>

#include "export.hpp"
#include "pane.hpp"

#include <QApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace pmixflow::gui {

TimeUnit time_unit_for(double span) {
  if (span >= 2 * 86400.0) return {86400.0, "d"};
  if (span >= 2 * 3600.0) return {3600.0, "h"};
  if (span >= 2 * 60.0) return {60.0, "min"};
  return {1.0, "s"};
}

QString format_duration(double seconds) {
  const double a = std::abs(seconds);
  const QString sign = seconds < 0 ? "-" : "";
  if (a < 1e-3) return sign + QString::number(a * 1e6, 'f', 0) + " µs";
  if (a < 1) return sign + QString::number(a * 1e3, 'f', 1) + " ms";
  if (a < 60) return sign + QString::number(a, 'f', a < 10 ? 3 : 1) + " s";
  // Two units are enough to read a wait; the rest is in the seconds shown beside it.
  const auto whole = static_cast<long long>(std::llround(a));
  const long long d = whole / 86400, h = whole / 3600 % 24, m = whole / 60 % 60, s = whole % 60;
  if (d > 0) return sign + QString("%1 d %2 h").arg(d).arg(h);
  if (h > 0) return sign + QString("%1 h %2 min").arg(h).arg(m);
  return sign + QString("%1 min %2 s").arg(m).arg(s);
}

QString format_moment(double t) {
  const QString seconds = QString::number(t, 'f', std::abs(t) < 100 ? 3 : 1) + " s";
  return std::abs(t) < 60 ? seconds : seconds + " (" + format_duration(t) + ")";
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  std::vector<double> ticks;
  if (!(hi > lo) || max_ticks < 1) return ticks;
  const double raw = (hi - lo) / max_ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

void TimeWindow::set_limits(double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  const bool whole = t0 <= lo_ && t1 >= hi_;
  lo_ = lo;
  hi_ = hi;
  // A window that showed the whole run keeps doing so as a followed log grows.
  if (whole) fit();
  clamp();
}

void TimeWindow::set(double from, double to) {
  t0 = from;
  t1 = to;
  clamp();
}

void TimeWindow::zoom(double factor, double about) {
  t0 = about - (about - t0) * factor;
  t1 = about + (t1 - about) * factor;
  clamp();
}

void TimeWindow::pan(double dt) {
  t0 += dt;
  t1 += dt;
  clamp();
}

void TimeWindow::clamp() {
  const double room = (hi_ - lo_) * 0.05;
  const double widest = hi_ - lo_ + 2 * room;
  double s = std::clamp(t1 - t0, 1e-3, widest);
  if (!std::isfinite(s)) s = widest;
  const double mid = std::isfinite(t0 + t1) ? (t0 + t1) / 2 : (lo_ + hi_) / 2;
  t0 = mid - s / 2;
  t1 = mid + s / 2;
  if (t0 < lo_ - room) t0 = lo_ - room, t1 = t0 + s;
  if (t1 > hi_ + room) t1 = hi_ + room, t0 = t1 - s;
}

namespace chart {

QFont font() {
  QFont f = QApplication::font();
  f.setPixelSize(12);
  return f;
}

QFont title_font() {
  QFont f = font();
  f.setPixelSize(13);
  f.setBold(true);
  return f;
}

}  // namespace chart

namespace {

// As many decimals as the tick step needs, and no more.
int decimals_for(const std::vector<double>& ticks) {
  if (ticks.size() < 2) return 0;
  const double step = std::abs(ticks[1] - ticks[0]);
  return std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
}

}  // namespace

void draw_time_axis(QPainter& p, const QRectF& plot, const TimeWindow& w, bool labels, bool grid) {
  p.save();
  const TimeUnit unit = time_unit_for(w.span());
  p.setFont(chart::font());
  const QFontMetricsF fm(p.font());
  const int max_ticks = std::max(2, static_cast<int>(plot.width() / 90));
  const auto ticks = nice_ticks(w.t0 / unit.seconds, w.t1 / unit.seconds, max_ticks);
  const int decimals = decimals_for(ticks);
  for (double v : ticks) {
    const double x = w.x_of(v * unit.seconds, plot);
    if (x < plot.left() - 0.5 || x > plot.right() + 0.5) continue;
    if (grid) {
      p.setPen(QPen(chart::kGrid, 1));
      p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    p.setPen(QPen(chart::kAxis, 1));
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    if (!labels) continue;
    const QString text = QString::number(v, 'f', decimals);
    const double tw = fm.horizontalAdvance(text);
    p.setPen(chart::kText);
    p.drawText(QPointF(x - tw / 2, plot.bottom() + 6 + fm.ascent()), text);
  }
  p.setPen(QPen(chart::kAxis, 1));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  if (labels) {
    const QString title = QString("time (%1)").arg(unit.name);
    p.setPen(chart::kText);
    p.drawText(
        QPointF(plot.center().x() - fm.horizontalAdvance(title) / 2, plot.bottom() + 8 + fm.height() + fm.ascent()),
        title);
  }
  p.restore();
}

void draw_value_axis(QPainter& p, const QRectF& plot, double v0, double v1, const QString& title,
                     const std::function<QString(double)>& label, bool grid, bool integers) {
  p.save();
  p.setFont(chart::font());
  const QFontMetricsF fm(p.font());
  const int max_ticks = std::max(2, static_cast<int>(plot.height() / (fm.height() * 2.2)));
  auto ticks = nice_ticks(v0, v1, max_ticks);
  if (integers) std::erase_if(ticks, [](double v) { return v != std::floor(v); });
  const auto y_of = [&](double v) { return plot.bottom() - (v - v0) / (v1 - v0) * plot.height(); };
  for (double v : ticks) {
    const double y = y_of(v);
    if (grid && v != v0) {
      p.setPen(QPen(chart::kGrid, 1));
      p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }
    p.setPen(QPen(chart::kAxis, 1));
    p.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
    const QString text = label(v);
    p.setPen(chart::kText);
    p.drawText(QPointF(plot.left() - 7 - fm.horizontalAdvance(text), y + fm.ascent() / 2 - 1), text);
  }
  p.setPen(QPen(chart::kAxis, 1));
  p.drawLine(plot.bottomLeft(), plot.topLeft());
  p.setPen(chart::kText);
  p.translate(plot.left() - chart::kLeft + 4 + fm.ascent(), plot.center().y() + fm.horizontalAdvance(title) / 2);
  p.rotate(-90);
  p.drawText(QPointF(0, 0), title);
  p.restore();
}

void draw_time_marker(QPainter& p, const QRectF& plot, const TimeWindow& w, double t) {
  const double x = w.x_of(t, plot);
  if (x < plot.left() || x > plot.right()) return;
  p.save();
  p.setPen(QPen(chart::kMarker, 1.5));
  p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  // A small flag on top, so that the line is found on a dense chart.
  const QPolygonF flag({QPointF(x - 4, plot.top() - 6), QPointF(x + 4, plot.top() - 6), QPointF(x, plot.top())});
  p.setBrush(chart::kMarker);
  p.setPen(Qt::NoPen);
  p.drawPolygon(flag);
  p.restore();
}

void draw_title(QPainter& p, const QRectF& area, const QString& title) {
  p.save();
  p.setFont(chart::title_font());
  p.setPen(chart::kText);
  const QFontMetricsF fm(p.font());
  p.drawText(QPointF(area.left() + 8, area.top() + 6 + fm.ascent()), title);
  p.restore();
}

void TimeDrag::press(QPointF at, const TimeWindow& w) {
  from_ = at;
  t0_ = w.t0;
  span_ = w.span();
  moved_ = false;
}

bool TimeDrag::move(QPointF at, double plot_width, TimeWindow& w) {
  if (!from_ || plot_width <= 0) return false;
  const double dx = at.x() - from_->x();
  moved_ = moved_ || std::abs(dx) > 3;
  if (!moved_) return false;
  const double t0 = t0_ - dx / plot_width * span_;
  w.set(t0, t0 + span_);
  return true;
}

bool TimeDrag::release() {
  const bool click = from_ && !moved_;
  from_.reset();
  return click;
}

ChartButtons::ChartButtons(Pane& chart, std::function<void()> fit) {
  auto* button = new QToolButton(&chart);
  button->setText("Fit");
  button->setToolTip("Show the whole run");
  button->setAutoRaise(true);
  QObject::connect(button, &QToolButton::clicked, &chart, std::move(fit));
  fit_ = button;
  export_ = make_export_button(chart);
}

void ChartButtons::place(int chart_width) {
  const QSize e = export_->sizeHint(), f = fit_->sizeHint();
  export_->setGeometry(chart_width - e.width() - 4, 3, e.width(), e.height());
  fit_->setGeometry(chart_width - e.width() - f.width() - 6, 3, f.width(), f.height());
}

void ChartButtons::set_visible(bool visible) {
  fit_->setVisible(visible);
  export_->setVisible(visible);
}

}  // namespace pmixflow::gui
