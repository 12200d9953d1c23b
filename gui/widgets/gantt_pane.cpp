#include "gantt_pane.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QToolButton>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "export.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow::gui {

namespace {

const QColor kGreyFill{0xea, 0xea, 0xea};
const QColor kGreyEdge{0xc4, 0xc4, 0xc4};
const QColor kFailedEdge{0xd6, 0x27, 0x28};
const QColor kBarLabel{0x25, 0x25, 0x25};
const QColor kNodeEdge{0xc8, 0xc8, 0xc8};

std::uint32_t fnv1a(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  // A final mix: ids that differ in their last digit alone ("job41", "job42") get far hues.
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h;
}

// "job42" is labelled 42, as evalys labels Batsim's job ids; a scenario's "alice#1" as it is.
QString bar_label(const std::string& corr) {
  if (corr.size() > 3 && corr.starts_with("job") &&
      std::all_of(corr.begin() + 3, corr.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return QString::fromStdString(corr.substr(3));
  return QString::fromStdString(corr);
}

QString slot_text(const view::Execution& x) {
  QStringList parts;
  for (const auto& [lo, hi] : x.ranges) parts << (lo == hi ? QString::number(lo) : QString("%1-%2").arg(lo).arg(hi));
  return parts.join(",");
}

// Contiguous ranges merged ("0-3 4-7" is one rectangle 0-7), as evalys draws them.
std::vector<std::pair<std::uint32_t, std::uint32_t>> contiguous_ranges(
    std::vector<std::pair<std::uint32_t, std::uint32_t>> r) {
  std::sort(r.begin(), r.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const auto& range : r) {
    if (!out.empty() && range.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, range.second);
    else
      out.push_back(range);
  }
  return out;
}

}  // namespace

QColor job_colour(const std::string& corr) {
  const std::uint32_t h = fnv1a(corr);
  return QColor::fromHsv(static_cast<int>(h % 360), 60 + static_cast<int>((h >> 9) % 60),
                         225 + static_cast<int>((h >> 17) % 25));
}

GanttPane::GanttPane(QWidget* parent) : Pane(parent) {
  setMouseTracking(true);
  setMinimumSize(320, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
  buttons_ = std::make_unique<ChartButtons>(*this, [this] {
    fit_window();
    emit window_changed(window_.t0, window_.t1);
  });
}

void GanttPane::set_model(const view::RunModel* model) {
  model_ = model;
  rebuild();
  update();
}

void GanttPane::set_time(double t) {
  if (t == now_) return;
  now_ = t;
  update();
}

void GanttPane::set_selection(const Selection& s) {
  std::uint32_t request = s.request;
  // A session picked elsewhere stands for the request that made it.
  if (request == view::kNone && s.session != view::kNone && model_ && s.session < model_->sessions().size())
    request = model_->find_request(model_->sessions()[s.session].corr).value_or(view::kNone);
  if (request == selected_) return;
  selected_ = request;
  update();
}

void GanttPane::paint_picture(QPainter& painter, QSize size) { paint_chart(painter, QSizeF(size)); }

void GanttPane::set_title(const QString& title) {
  title_ = title;
  update();
}

void GanttPane::set_emphasis(std::vector<std::uint8_t> flags) {
  emphasis_ = std::move(flags);
  update();
}

void GanttPane::set_time_limits(double lo, double hi) {
  limits_ = {lo, hi};
  window_.set_limits(lo, hi);
  update();
}

void GanttPane::set_window(double t0, double t1) {
  window_.set(t0, t1);
  update();
}

void GanttPane::fit_window() {
  window_.fit();
  update();
}

void GanttPane::reveal(std::uint32_t request) {
  const auto it = std::find_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.request == request; });
  if (it == bars_.end() || (it->end >= window_.t0 && it->start <= window_.t1)) return;
  const double span = window_.span();
  const double mid = (it->start + std::min(it->end, it->start + span * 0.8)) / 2;
  window_.set(mid - span / 2, mid + span / 2);
  window_moved();
}

void GanttPane::set_buttons_visible(bool visible) { buttons_->set_visible(visible); }

bool GanttPane::emphasised(std::uint32_t request) const {
  return emphasis_.empty() || (request < emphasis_.size() && emphasis_[request]);
}

void GanttPane::rebuild() {
  bars_.clear();
  reach_.clear();
  node_edges_.clear();
  resources_ = 0;
  any_preempted_ = any_failed_ = false;
  auto_title_ = default_title();
  if (!model_) return rebuild_looks();
  const double last = model_->end_time();
  const auto& xs = model_->executions();
  for (std::uint32_t i = 0; i < xs.size(); ++i) {
    const auto& x = xs[i];
    std::uint8_t marks = (x.preempted ? kPreempted : 0) | (x.end ? 0 : kOpen);
    if (x.status && *x.status != Status::Success) marks |= kFailed;
    any_preempted_ |= x.preempted;
    any_failed_ |= (marks & kFailed) != 0;
    for (const auto& [lo, hi] : contiguous_ranges(x.ranges)) {
      bars_.push_back({x.start, std::max(x.start, x.end.value_or(last)), lo, hi, x.request, i, marks});
      resources_ = std::max<std::uint64_t>(resources_, std::uint64_t{hi} + 1);
    }
  }
  std::stable_sort(bars_.begin(), bars_.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
  reach_.reserve(bars_.size());
  double reach = -INFINITY;
  for (const auto& b : bars_) reach_.push_back(reach = std::max(reach, b.end));
  resources_ = std::max(resources_, model_->total_slots());
  // Node boundaries: slots are numbered node after node over the nodes that compute, which come
  // first (the head node, listed last, only computes when told to, and then counts in the total).
  // Nodes of one slot have no boundary worth a line: every row is one.
  std::uint64_t first = 0;
  std::uint32_t fewest = UINT32_MAX;
  for (const auto& n : model_->nodes()) {
    if (first == resources_) break;
    if (first > 0) node_edges_.push_back(static_cast<std::uint32_t>(first));
    first += n.slot_count;
    fewest = std::min(fewest, n.slot_count);
  }
  if (first != resources_ || fewest < 2 || node_edges_.size() > 256) node_edges_.clear();
  if (!limits_) window_.set_limits(model_->start_time(), std::max(last, model_->start_time() + 1));
  rebuild_looks();
  auto_title_ = default_title();
}

void GanttPane::rebuild_looks() {
  const std::size_t n = model_ ? model_->requests().size() : 0;
  fill_.resize(n);
  edge_.resize(n);
  labels_.resize(n);
  label_widths_.resize(n);
  QFont f = chart::font();
  f.setPixelSize(11);
  const QFontMetricsF fm(f);
  for (std::size_t r = 0; r < n; ++r) {
    const auto& corr = model_->requests()[r].corr;
    const QColor c = job_colour(corr);
    fill_[r] = c.rgb();
    edge_[r] = c.darker(165).rgb();
    labels_[r] = bar_label(corr);
    label_widths_[r] = static_cast<float>(fm.horizontalAdvance(labels_[r]));
  }
}

QString GanttPane::default_title() const {
  if (!model_) return "Gantt chart";
  const auto& in = model_->header().inputs;
  QStringList what;
  for (const char* key : {"name", "policy"})
    if (in.contains(key) && in[key].is_string()) what << QString::fromStdString(in[key].get<std::string>());
  std::size_t jobs = 0;
  std::vector<std::uint8_t> seen(model_->requests().size(), 0);
  for (const auto& x : model_->executions())
    if (x.request < seen.size() && !seen[x.request]++) ++jobs;
  return QString("%1%2 jobs on %3 resources")
      .arg(what.isEmpty() ? "" : what.join(", ") + ": ")
      .arg(jobs)
      .arg(resources_);
}

QRectF GanttPane::plot_rect(QSizeF size) const {
  return QRectF(chart::kLeft, chart::kTop, std::max(10.0, size.width() - chart::kLeft - chart::kRight),
                std::max(10.0, size.height() - chart::kTop - chart::kBottom));
}

// Row r is [r - 0.5, r + 0.5] on the value axis, so that the axis's integer ticks fall on the
// middle of rows.
QRectF GanttPane::bar_rect(const Bar& b, const QRectF& plot) const {
  const double row = plot.height() / static_cast<double>(std::max<std::uint64_t>(resources_, 1));
  const double x0 = window_.x_of(b.start, plot), x1 = window_.x_of(b.end, plot);
  return QRectF(QPointF(x0, plot.bottom() - (b.hi + 1) * row), QPointF(x1, plot.bottom() - b.lo * row));
}

double GanttPane::resource_at(double y, const QRectF& plot) const {
  return (plot.bottom() - y) / plot.height() * static_cast<double>(std::max<std::uint64_t>(resources_, 1));
}

template <class F>
void GanttPane::for_visible(double t0, double t1, F&& f) const {
  const auto first = std::upper_bound(reach_.begin(), reach_.end(), t0) - reach_.begin();
  const auto last =
      std::upper_bound(bars_.begin(), bars_.end(), t1, [](double t, const Bar& b) { return t < b.start; }) -
      bars_.begin();
  for (auto i = first; i < last; ++i)
    if (bars_[i].end >= t0) f(static_cast<std::size_t>(i));
}

void GanttPane::paint_chart(QPainter& p, QSizeF size) {
  p.save();
  p.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const QRectF plot = plot_rect(size);
  draw_title(p, QRectF(QPointF(0, 0), size), title_.isEmpty() ? auto_title_ : title_);
  paint_legend(p, size);
  draw_time_axis(p, plot, window_, true, true);
  const double v1 = static_cast<double>(std::max<std::uint64_t>(resources_, 1)) - 0.5;
  draw_value_axis(
      p, plot, -0.5, v1, "resources", [](double v) { return QString::number(v, 'f', 0); }, false, true);
  paint_rows(p, plot);
  p.setClipRect(plot.adjusted(0, -1, 1, 0));
  paint_bars(p, plot);
  paint_overlays(p, plot);
  p.setClipping(false);
  p.setPen(QPen(chart::kAxis, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);
  draw_time_marker(p, plot, window_, now_);
  p.restore();
}

void GanttPane::paint_rows(QPainter& p, const QRectF& plot) {
  if (node_edges_.empty()) return;
  const double row = plot.height() / static_cast<double>(std::max<std::uint64_t>(resources_, 1));
  if (row * static_cast<double>(resources_) / static_cast<double>(node_edges_.size() + 1) < 4) return;
  p.setPen(QPen(kNodeEdge, 1, Qt::DotLine));
  for (const auto first : node_edges_) {
    const double y = plot.bottom() - first * row;
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
  }
}

void GanttPane::paint_bars(QPainter& p, const QRectF& plot) {
  overlay_.clear();
  const bool smooth = p.testRenderHint(QPainter::Antialiasing);
  // Pixel-aligned rectangles without antialiasing: crisp, and the raster engine's fast path for
  // the tens of thousands a whole trace has.
  p.setRenderHint(QPainter::Antialiasing, false);
  for_visible(window_.t0, window_.t1, [&](std::size_t i) {
    const Bar& b = bars_[i];
    QRectF r = bar_rect(b, plot);
    if (r.width() < 1) r.setWidth(1);
    const bool colour = emphasised(b.request);
    const QRect px = r.toAlignedRect().intersected(plot.toAlignedRect().adjusted(-2, -2, 2, 2));
    // The edge is the rectangle filled in its darker colour, then its inside in its own: two
    // solid fills, no pen to make per rectangle.
    const bool edged = px.width() >= 4 && px.height() >= 4;
    if (edged) p.fillRect(px, colour ? QColor(edge_[b.request]) : kGreyEdge);
    p.fillRect(edged ? px.adjusted(1, 1, -1, -1) : px, colour ? QColor(fill_[b.request]) : kGreyFill);
    const bool labelled = colour && r.width() >= label_widths_[b.request] + 6 && r.height() >= 13;
    if (b.marks || labelled || b.request == selected_) overlay_.push_back(i);
  });
  p.setRenderHint(QPainter::Antialiasing, smooth);
}

// What goes over the rectangles: hatching, red outlines, labels and the selection, on the few
// bars that need them.
void GanttPane::paint_overlays(QPainter& p, const QRectF& plot) {
  QFont f = chart::font();
  f.setPixelSize(11);
  p.setFont(f);
  const QFontMetricsF fm(f);
  for (const std::size_t i : overlay_) {
    const Bar& b = bars_[i];
    const QRectF r = bar_rect(b, plot).intersected(plot.adjusted(-2, -2, 2, 2));
    const bool colour = emphasised(b.request);
    if (b.marks & kPreempted) {
      p.save();
      p.setClipRect(r, Qt::IntersectClip);
      p.setPen(QPen(colour ? QColor(edge_[b.request]) : kGreyEdge, 1));
      for (double x = r.left() - r.height(); x < r.right(); x += 7)
        p.drawLine(QPointF(x, r.bottom()), QPointF(x + r.height(), r.top()));
      p.restore();
    }
    if ((b.marks & kFailed) && colour) {
      p.setPen(QPen(kFailedEdge, 1.6));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r.adjusted(0.8, 0.8, -0.8, -0.8));
    }
    if (colour && r.width() >= label_widths_[b.request] + 6 && r.height() >= 13) {
      p.setPen(kBarLabel);
      const auto& text = labels_[b.request];
      p.drawText(QPointF(r.center().x() - label_widths_[b.request] / 2, r.center().y() + fm.ascent() / 2 - 1.5), text);
    }
  }
  // The selection last, over its neighbours' edges.
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(chart::kSelection, 2.5));
  for (const std::size_t i : overlay_)
    if (bars_[i].request == selected_) p.drawRect(bar_rect(bars_[i], plot).adjusted(-1, -1, 1, 1));
}

void GanttPane::paint_legend(QPainter& p, QSizeF size) {
  if (!any_preempted_ && !any_failed_) return;
  p.save();
  p.setFont(chart::font());
  const QFontMetricsF fm(p.font());
  // Right-aligned, left of where the buttons sit on screen.
  double x = size.width() - chart::kRight - 130;
  const double y = 8, h = 12;
  const auto item = [&](const QString& text, auto&& swatch) {
    x -= fm.horizontalAdvance(text) + 26;
    const QRectF box(x, y, 18, h);
    p.fillRect(box, QColor(0xd8, 0xd8, 0xd8));
    swatch(box);
    p.setPen(chart::kText);
    p.drawText(QPointF(x + 22, y + h / 2 + fm.ascent() / 2 - 1), text);
    x -= 10;
  };
  if (any_failed_)
    item("killed or failed", [&](const QRectF& box) {
      p.setPen(QPen(kFailedEdge, 1.6));
      p.drawRect(box.adjusted(0.8, 0.8, -0.8, -0.8));
    });
  if (any_preempted_)
    item("preempted", [&](const QRectF& box) {
      p.setClipRect(box);
      p.setPen(QPen(QColor(0x70, 0x70, 0x70), 1));
      for (double lx = box.left() - h; lx < box.right(); lx += 6)
        p.drawLine(QPointF(lx, box.bottom()), QPointF(lx + h, box.top()));
      p.setClipping(false);
    });
  p.restore();
}

std::optional<std::size_t> GanttPane::bar_at(QPointF pos) const {
  const QRectF plot = plot_rect(QSizeF(size()));
  if (!plot.contains(pos)) return std::nullopt;
  const double t = window_.t_of(pos.x(), plot);
  const double slack = 2 * window_.span() / plot.width();  // thin bars are still hit
  const double r = resource_at(pos.y(), plot);
  std::optional<std::size_t> hit;
  double best = INFINITY;
  for_visible(t - slack, t + slack, [&](std::size_t i) {
    const Bar& b = bars_[i];
    if (r < b.lo || r >= b.hi + 1.0) return;
    const double miss = t < b.start ? b.start - t : (t > b.end ? t - b.end : 0);
    if (miss < best) best = miss, hit = i;
  });
  return hit;
}

QString GanttPane::describe(const Bar& b) const {
  const auto& x = model_->executions()[b.execution];
  const auto& corr = model_->requests()[b.request].corr;
  QString text = QString("<b>%1</b> (%2)<br>start %3<br>")
                     .arg(QString::fromStdString(corr).toHtmlEscaped(), QString::fromStdString(x.alloc).toHtmlEscaped(),
                          format_moment(x.start));
  text += x.end ? QString("end %1<br>ran %2<br>").arg(format_moment(*x.end), format_duration(*x.end - x.start))
                : QString("still running<br>");
  text += QString("slots %1 (%2)").arg(slot_text(x)).arg(x.slot_count());
  if (x.preempted) text += "<br>preempted here; it ran again later";
  if (x.status) text += "<br>" + QString::fromStdString(status_name(*x.status)).toHtmlEscaped();
  return text;
}

void GanttPane::window_moved() {
  update();
  emit window_changed(window_.t0, window_.t1);
}

void GanttPane::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paint_chart(p, QSizeF(size()));
}

void GanttPane::resizeEvent(QResizeEvent*) { buttons_->place(width()); }

void GanttPane::wheelEvent(QWheelEvent* event) {
  const QRectF plot = plot_rect(QSizeF(size()));
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return event->ignore();
  window_.zoom(std::pow(0.8, steps), window_.t_of(event->position().x(), plot));
  window_moved();
  event->accept();
}

void GanttPane::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return Pane::mousePressEvent(event);
  drag_.press(event->position(), window_);
}

void GanttPane::mouseMoveEvent(QMouseEvent* event) {
  const QRectF plot = plot_rect(QSizeF(size()));
  if (drag_.pressed() && (event->buttons() & Qt::LeftButton)) {
    if (!drag_.move(event->position(), plot.width(), window_)) return;
    setCursor(Qt::ClosedHandCursor);
    return window_moved();
  }
  const auto hit = model_ ? bar_at(event->position()) : std::nullopt;
  if (!hit) return QToolTip::hideText();
  QToolTip::showText(event->globalPosition().toPoint(), describe(bars_[*hit]), this,
                     bar_rect(bars_[*hit], plot).toAlignedRect());
}

void GanttPane::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !drag_.pressed()) return Pane::mouseReleaseEvent(event);
  const bool click = drag_.release();
  unsetCursor();
  if (!click || !model_) return;
  const auto hit = bar_at(event->position());
  Selection s;
  if (hit) s.request = bars_[*hit].request;
  selected_ = s.request;
  update();
  emit selected(s);
}

void GanttPane::mouseDoubleClickEvent(QMouseEvent* event) {
  const QRectF plot = plot_rect(QSizeF(size()));
  if (event->button() != Qt::LeftButton || !plot.contains(event->position())) return;
  emit seek(window_.t_of(event->position().x(), plot));
}

}  // namespace pmixflow::gui
