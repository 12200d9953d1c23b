#include "utilisation_pane.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QToolButton>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "export.hpp"

namespace pmixflow::gui {

namespace {

const QColor kUsed{0x2f, 0x6f, 0xb0};
const QColor kQueue{0xe0, 0x7a, 0x10};
const QColor kSelectionBand{0x10, 0x10, 0x10, 0x1c};
constexpr double kPlotGap = 16;  // between the two plots

}  // namespace

UtilisationPane::UtilisationPane(QWidget* parent) : Pane(parent) {
  setMouseTracking(true);
  setMinimumSize(320, 220);
  setAttribute(Qt::WA_OpaquePaintEvent);
  buttons_ = std::make_unique<ChartButtons>(*this, [this] {
    fit_window();
    emit window_changed(window_.t0, window_.t1);
  });
}

void UtilisationPane::set_model(const view::RunModel* model) {
  model_ = model;
  if (model_) window_.set_limits(model_->start_time(), std::max(model_->end_time(), model_->start_time() + 1));
  update();
}

void UtilisationPane::set_time(double t) {
  if (t == now_) return;
  now_ = t;
  update();
}

void UtilisationPane::set_selection(const Selection& s) {
  if (s.request == selected_) return;
  selected_ = s.request;
  update();
}

void UtilisationPane::paint_picture(QPainter& painter, QSize size) { paint_chart(painter, QSizeF(size)); }

void UtilisationPane::set_window(double t0, double t1) {
  window_.set(t0, t1);
  update();
}

void UtilisationPane::fit_window() {
  window_.fit();
  update();
}

UtilisationPane::Plots UtilisationPane::plots(QSizeF size) const {
  const double left = chart::kLeft, width = std::max(10.0, std::round(size.width() - chart::kLeft - chart::kRight));
  const double room = std::max(20.0, std::round(size.height() - chart::kTop - chart::kBottom - kPlotGap));
  // Whole pixels: a clip on a fractional rectangle is a mask, slow on every span.
  const double used = std::round(room * 0.58);
  return {QRectF(left, chart::kTop, width, used), QRectF(left, chart::kTop + used + kPlotGap, width, room - used)};
}

double UtilisationPane::used_share(double t) const {
  const auto total = model_ ? model_->total_slots() : 0;
  return total ? 100.0 * model_->used_slots().at(t) / static_cast<double>(total) : 0;
}

// The queue axis's top: a round number above the longest queue, so that its peak stays inside.
double UtilisationPane::queue_top() const {
  const double most = model_ ? std::max(1.0, model_->queue_length().max()) : 1.0;
  const auto ticks = nice_ticks(0, most, 4);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  return std::ceil(most / step - 1e-9) * step;
}

void UtilisationPane::paint_chart(QPainter& p, QSizeF size) {
  p.save();
  p.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const Plots at = plots(size);
  const double top = queue_top();
  const double total = model_ ? static_cast<double>(std::max<std::uint64_t>(model_->total_slots(), 1)) : 1;
  const auto series = [&](bool area) {
    if (!model_) return;
    paint_series(p, at.used, model_->used_slots(), 100.0 / total, 100, kUsed, area);
    paint_series(p, at.queue, model_->queue_length(), 1.0, top, kQueue, area);
  };
  // The areas under the grid lines, the outlines over them.
  series(true);
  paint_readout(p, size);
  draw_time_axis(p, at.used, window_, false, true);
  draw_time_axis(p, at.queue, window_, true, true);
  const auto whole = [](double v) { return QString::number(v, 'f', 0); };
  draw_value_axis(p, at.used, 0, 100, "used (% of slots)", whole, true, false);
  draw_value_axis(p, at.queue, 0, top, "queued requests", whole, true, true);
  series(false);
  paint_selection(p, at);
  for (const QRectF& plot : {at.used, at.queue}) {
    p.setPen(QPen(chart::kAxis, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(plot);
    draw_time_marker(p, plot, window_, now_);
  }
  p.restore();
}

void UtilisationPane::paint_readout(QPainter& p, QSizeF size) {
  draw_title(p, QRectF(QPointF(0, 0), size), "Utilisation and queue length");
  if (!model_) return;
  p.save();
  const double title_width = QFontMetricsF(chart::title_font()).horizontalAdvance("Utilisation and queue length");
  p.setFont(chart::font());
  p.setPen(chart::kText);
  const QString text = QString("at T = %1:  %2 % of %3 slots used,  %4 queued")
                           .arg(format_duration(now_))
                           .arg(used_share(now_), 0, 'f', 1)
                           .arg(model_->total_slots())
                           .arg(model_->queue_length().at(now_));
  p.drawText(QPointF(8 + title_width + 24, 6 + QFontMetricsF(p.font()).ascent()), text);
  p.restore();
}

// The selected request's stretches, as a light band across both plots: when it ran, against
// how busy the machine was.
void UtilisationPane::paint_selection(QPainter& p, const Plots& at) {
  if (!model_ || selected_ == view::kNone) return;
  for (const auto& x : model_->executions()) {
    if (x.request != selected_) continue;
    const double end = x.end.value_or(model_->end_time());
    for (const QRectF& plot : {at.used, at.queue}) {
      const double x0 = std::max(plot.left(), window_.x_of(x.start, plot));
      const double x1 = std::min(plot.right(), window_.x_of(end, plot));
      if (x1 > x0) p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), kSelectionBand);
    }
  }
}

void UtilisationPane::paint_series(QPainter& p, const QRectF& plot, const view::StepSeries& s, double scale, double top,
                                   const QColor& colour, bool area) {
  step_outline(plot, s, scale, top);
  if (outline_.size() < 2) return;
  p.save();
  p.setClipRect(plot);
  // Steps are horizontal and vertical: crisp without antialiasing, and much cheaper.
  p.setRenderHint(QPainter::Antialiasing, false);
  // Opaque, the colour a quarter over white: a translucent fill of a large area is blended by
  // the raster engine's worker threads, whose start costs more than the fill.
  const QColor fill = QColor::fromRgbF(1 - (1 - colour.redF()) * 0.27f, 1 - (1 - colour.greenF()) * 0.27f,
                                       1 - (1 - colour.blueF()) * 0.27f);
  constexpr double kLine = 1.4;
  if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster) {
    // On pixels, the steps as solid rectangles: a polygon or a wide polyline of a year's
    // thousands of pixel-wide steps costs the raster engine far more than these. A vector
    // picture keeps the one polygon, easier to edit.
    for (qsizetype i = 1; i + 1 < outline_.size(); ++i) {
      const QPointF a = outline_[i], b = outline_[i + 1];
      const bool flat = a.y() == b.y();
      if (area && flat) p.fillRect(QRectF(a.x(), a.y(), b.x() - a.x(), plot.bottom() - a.y()), fill);
      if (!area && flat) p.fillRect(QRectF(a.x() - kLine / 2, a.y() - kLine / 2, b.x() - a.x() + kLine, kLine), colour);
      if (!area && !flat && i + 2 < outline_.size())
        p.fillRect(
            QRectF(a.x() - kLine / 2, std::min(a.y(), b.y()) - kLine / 2, kLine, std::abs(b.y() - a.y()) + kLine),
            colour);
    }
  } else if (area) {
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawPolygon(outline_);
  } else {
    p.setPen(QPen(colour, kLine));
    p.setBrush(Qt::NoBrush);
    // The outline without the polygon's closing edges along the base.
    p.drawPolyline(outline_.constData() + 1, static_cast<int>(outline_.size()) - 2);
  }
  p.restore();
}

// The outline of the series between the run's start and end within the window, one
// time-weighted mean per pixel column: a year of steps costs what the plot's width costs, and a
// dip of a few milliseconds between two jobs is not drawn as a full-height line.
void UtilisationPane::step_outline(const QRectF& plot, const view::StepSeries& s, double scale, double top) {
  outline_.clear();
  const double from = std::max(window_.t0, model_->start_time());
  const double to = std::min(window_.t1, model_->end_time());
  if (!(to > from)) return;
  const auto y_of = [&](double v) { return plot.bottom() - std::clamp(v * scale / top, 0.0, 1.05) * plot.height(); };
  const double x0 = window_.x_of(from, plot), x1 = window_.x_of(to, plot);
  const int n = std::max(1, static_cast<int>(std::ceil(x1 - x0)));
  column_means(s, from, to, n);
  const double w = (x1 - x0) / n;
  outline_.append(QPointF(x0, plot.bottom()));
  for (int c = 0; c < n; ++c) {
    const double y = y_of(columns_[static_cast<std::size_t>(c)]);
    // A run of equal columns is one step: a short outline, a small SVG.
    if (c > 0 && outline_.back().y() == y) continue;
    if (c > 0) outline_.append(QPointF(x0 + c * w, outline_.back().y()));
    outline_.append(QPointF(x0 + c * w, y));
  }
  outline_.append(QPointF(x1, outline_.back().y()));
  outline_.append(QPointF(x1, plot.bottom()));
}

void UtilisationPane::column_means(const view::StepSeries& s, double from, double to, int columns) {
  columns_.assign(static_cast<std::size_t>(columns), 0.0);
  const double dt = (to - from) / columns;
  auto i = static_cast<std::size_t>(std::upper_bound(s.t.begin(), s.t.end(), from) - s.t.begin());
  double v = s.at(from), at = from;
  for (int c = 0; c < columns; ++c) {
    const double end = from + (c + 1) * dt;
    double area = 0;
    for (; i < s.t.size() && s.t[i] < end; ++i) {
      area += v * (s.t[i] - at);
      at = s.t[i];
      v = s.v[i];
    }
    area += v * (end - at);
    at = end;
    columns_[static_cast<std::size_t>(c)] = area / dt;
  }
}

QString UtilisationPane::describe(double t) const {
  return QString("%1<br>%2 of %3 slots used (%4 %)<br>%5 queued")
      .arg(format_moment(t))
      .arg(model_->used_slots().at(t))
      .arg(model_->total_slots())
      .arg(used_share(t), 0, 'f', 1)
      .arg(model_->queue_length().at(t));
}

void UtilisationPane::window_moved() {
  update();
  emit window_changed(window_.t0, window_.t1);
}

void UtilisationPane::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paint_chart(p, QSizeF(size()));
}

void UtilisationPane::resizeEvent(QResizeEvent*) { buttons_->place(width()); }

void UtilisationPane::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return event->ignore();
  window_.zoom(std::pow(0.8, steps), window_.t_of(event->position().x(), plots(QSizeF(size())).queue));
  window_moved();
  event->accept();
}

void UtilisationPane::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return Pane::mousePressEvent(event);
  drag_.press(event->position(), window_);
}

void UtilisationPane::mouseMoveEvent(QMouseEvent* event) {
  const Plots at = plots(QSizeF(size()));
  if (drag_.pressed() && (event->buttons() & Qt::LeftButton)) {
    if (!drag_.move(event->position(), at.queue.width(), window_)) return;
    setCursor(Qt::ClosedHandCursor);
    return window_moved();
  }
  if (!model_ || !(at.used.contains(event->position()) || at.queue.contains(event->position())))
    return QToolTip::hideText();
  QToolTip::showText(event->globalPosition().toPoint(), describe(window_.t_of(event->position().x(), at.queue)), this);
}

void UtilisationPane::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !drag_.pressed()) return Pane::mouseReleaseEvent(event);
  const bool click = drag_.release();
  unsetCursor();
  const Plots at = plots(QSizeF(size()));
  const bool inside = at.used.contains(event->position()) || at.queue.contains(event->position());
  if (!click || !model_ || !inside) return;
  emit seek(window_.t_of(event->position().x(), at.queue));
}

}  // namespace pmixflow::gui
