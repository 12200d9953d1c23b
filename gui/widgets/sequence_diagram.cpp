#include "sequence_diagram.hpp"

#include <QFontMetricsF>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace pmixflow::gui {

namespace diagram_look {

constexpr double kMargin = 16;
constexpr double kGutter = 132;  // the time column on the left
constexpr double kHeaderH = 48;
constexpr double kMaxRowH = 80;
constexpr double kGapShown = 1e-3;  // waits longer than this are marked between rows

const QColor kInk(0x26, 0x32, 0x38);
const QColor kMuted(0x60, 0x7d, 0x8b);
const QColor kNowColor(0xd3, 0x2f, 0x2f);

QFont pixel_font(int px, bool bold = false, bool italic = false) {
  QFont f;
  f.setPixelSize(px);
  f.setBold(bold);
  f.setItalic(italic);
  return f;
}

QColor mix(const QColor& c, const QColor& with, double amount) {
  return QColor::fromRgbF(static_cast<float>(c.redF() * (1 - amount) + with.redF() * amount),
                          static_cast<float>(c.greenF() * (1 - amount) + with.greenF() * amount),
                          static_cast<float>(c.blueF() * (1 - amount) + with.blueF() * amount));
}

QString time_text(double t) { return QString::number(t, 'f', t >= 1e4 ? 1 : 3) + QStringLiteral(" s"); }

QString span_text(double dt) {
  if (dt >= 1) return QStringLiteral("+%1 s").arg(dt, 0, 'f', dt >= 100 ? 0 : 1);
  if (dt >= 1e-3) return QStringLiteral("+%1 ms").arg(dt * 1e3, 0, 'f', dt >= 0.1 ? 0 : 1);
  if (dt >= 1e-6) return QStringLiteral("+%1 µs").arg(dt * 1e6, 0, 'f', 0);
  return QStringLiteral("+%1 ns").arg(dt * 1e9, 0, 'f', 0);
}

struct RoleLook {
  QColor fill, edge;
  const char* caption;
};
RoleLook role_look(view::PartyRole role) {
  switch (role) {
    case view::PartyRole::Requestor: return {QColor(0xe8, 0xea, 0xf6), QColor(0x5c, 0x6b, 0xc0), "requestor"};
    case view::PartyRole::Daemon: return {QColor(0xe0, 0xf2, 0xf1), QColor(0x26, 0xa6, 0x9a), "daemon"};
    case view::PartyRole::Controller: return {QColor(0xff, 0xf3, 0xe0), QColor(0xfb, 0x8c, 0x00), "the RM"};
    case view::PartyRole::Scheduler: return {QColor(0xf3, 0xe5, 0xf5), QColor(0x8e, 0x24, 0xaa), "scheduler"};
    default: return {QColor(0xec, 0xef, 0xf1), QColor(0x90, 0xa4, 0xae), ""};
  }
}

QString short_name(const std::string& name) {
  const auto colon = name.find(':');
  return QString::fromStdString(colon == std::string::npos ? name : name.substr(colon + 1));
}

double emphasis_rank(Emphasis e) {
  switch (e) {
    case Emphasis::Ghost: return 0;
    case Emphasis::Dim: return 1;
    case Emphasis::Normal: return 2;
    case Emphasis::Strong: return 3;
  }
  return 2;
}

// A pill of text with a white ground, so that it stays readable over lines.
void pill(QPainter& p, const QRectF& r, const QString& text, const QColor& ink, const QColor& edge) {
  p.setPen(edge.isValid() ? QPen(edge, 1) : QPen(Qt::NoPen));
  p.setBrush(QColor(255, 255, 255, 235));
  p.drawRoundedRect(r, 3, 3);
  p.setPen(ink);
  p.drawText(r, Qt::AlignCenter, text);
}

double distance(const QLineF& l, QPointF pt) {
  const QPointF d = l.p2() - l.p1();
  const double len2 = d.x() * d.x() + d.y() * d.y();
  double u = len2 > 0 ? ((pt.x() - l.x1()) * d.x() + (pt.y() - l.y1()) * d.y()) / len2 : 0;
  u = std::clamp(u, 0.0, 1.0);
  return QLineF(l.pointAt(u), pt).length();
}

enum class Head { Filled, Open, Lost };

// The head, where the message has got to: filled for requests, open for answers (as in UML),
// a cross for a message that never arrived.
void paint_head(QPainter& p, const QLineF& line, const QColor& color, double width, Head shape) {
  const double angle = std::atan2(line.dy(), line.dx());
  const double head = 6 + 2 * width;
  const QPointF tip = line.p2();
  const QPointF left(tip.x() - head * std::cos(angle - 0.4), tip.y() - head * std::sin(angle - 0.4));
  const QPointF right(tip.x() - head * std::cos(angle + 0.4), tip.y() - head * std::sin(angle + 0.4));
  p.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  switch (shape) {
    case Head::Lost:
      p.drawLine(QLineF(tip + QPointF(-5, -5), tip + QPointF(5, 5)));
      p.drawLine(QLineF(tip + QPointF(-5, 5), tip + QPointF(5, -5)));
      return;
    case Head::Open: p.drawPolyline(QPolygonF({left, tip, right})); return;
    case Head::Filled:
      p.setBrush(color);
      p.drawPolygon(QPolygonF({left, tip, right}));
      return;
  }
}

}  // namespace diagram_look

QColor SequenceDiagram::kind_color(std::string_view kind) {
  if (kind.starts_with("alloc")) return QColor(0x15, 0x65, 0xc0);
  if (kind.starts_with("session_ctrl")) return QColor(0xe6, 0x51, 0x00);
  if (kind.starts_with("spawn")) return QColor(0xad, 0x14, 0x57);
  if (kind.starts_with("daemon")) return QColor(0x6a, 0x1b, 0x9a);
  if (kind.starts_with("connect")) return QColor(0x54, 0x6e, 0x7a);
  if (kind == "notify") return QColor(0xc6, 0x28, 0x28);
  if (kind.find("procs") != std::string_view::npos) return QColor(0x2e, 0x7d, 0x32);
  if (kind == "unreachable" || kind == "peer_lost") return QColor(0x79, 0x55, 0x48);
  return QColor(0x45, 0x5a, 0x64);
}

bool SequenceDiagram::is_answer(std::string_view kind) { return kind.ends_with("_response"); }

void SequenceDiagram::set(const view::RunModel* model, DiagramContent content) {
  model_ = model;
  content_ = std::move(content);
  lanes_.clear();
  rows_.clear();
  kinds_.clear();
  hits_.clear();
  if (!model_) return;
  const auto& parties = model_->parties();
  // Sorting thousands of daemons' names on every frame of an animation would show: the order
  // changes only when parties join.
  if (ranked_model_ != model_ || rank_.size() != parties.size()) {
    const auto order = view::lane_order(parties);
    rank_.assign(parties.size(), static_cast<std::uint32_t>(parties.size()));
    for (std::uint32_t i = 0; i < order.size(); ++i) rank_[order[i]] = i;
    ranked_model_ = model_;
  }
  const auto& rank = rank_;

  const auto& messages = model_->messages();
  std::vector<const view::Message*> shown;
  for (const auto& a : content_.arrows) {
    if (a.message >= messages.size()) continue;
    const auto& m = messages[a.message];
    shown.push_back(&m);
    add_lane(m.from, rank);
    add_lane(m.to, rank);
    rows_.push_back(m.sent_at);
    if (m.received_at) rows_.push_back(*m.received_at);
  }
  std::sort(shown.begin(), shown.end(), [](auto* a, auto* b) { return a->sent_at < b->sent_at; });
  for (const auto* m : shown)
    if (std::find(kinds_.begin(), kinds_.end(), m->kind) == kinds_.end()) kinds_.push_back(m->kind);
  const auto events = model_->events();
  for (const auto& mk : content_.markers) {
    if (mk.event >= events.size()) continue;
    add_lane(events[mk.event].who, rank);
    rows_.push_back(events[mk.event].t);
  }
  std::sort(rows_.begin(), rows_.end());
  rows_.erase(std::unique(rows_.begin(), rows_.end()), rows_.end());
  std::stable_sort(lanes_.begin(), lanes_.end(),
                   [&](const Lane& a, const Lane& b) { return rank[a.party] < rank[b.party]; });
}

void SequenceDiagram::add_lane(std::uint32_t party, const std::vector<std::uint32_t>& rank) {
  if (party >= rank.size()) return;
  for (const auto& l : lanes_)
    if (l.party == party) return;
  lanes_.push_back(Lane{party, 0});
}

double SequenceDiagram::lane_x(std::uint32_t party) const {
  for (const auto& l : lanes_)
    if (l.party == party) return l.x;
  return geometry_.body.left();
}

double SequenceDiagram::y_of(double t) const {
  const auto& b = geometry_.body;
  const double h = geometry_.row_h;
  if (rows_.empty()) return b.top();
  const auto row_y = [&](std::size_t i) { return b.top() + (static_cast<double>(i) + 0.5) * h; };
  if (t <= rows_.front()) return row_y(0);
  const auto it = std::upper_bound(rows_.begin(), rows_.end(), t);
  const auto i = static_cast<std::size_t>(it - rows_.begin()) - 1;
  if (i + 1 >= rows_.size()) return row_y(i);
  const double f = (t - rows_[i]) / (rows_[i + 1] - rows_[i]);
  return row_y(i) + f * h;
}

double SequenceDiagram::title_height() const {
  if (content_.title.isEmpty()) return 0;
  return 30 + (content_.subtitle.isEmpty() ? 0 : 20) + 19 * static_cast<double>(content_.notes.size()) + 10;
}

double SequenceDiagram::caption_height(double width) const {
  if (!content_.caption) return 0;
  const QFontMetricsF text(diagram_look::pixel_font(14));
  const auto body = text.boundingRect(QRectF(0, 0, width - 32, 10000), Qt::TextWordWrap,
                                      QString::fromStdString(content_.caption->text));
  return 20 + 24 + body.height() + 8 + 20 + 12;
}

double SequenceDiagram::legend_height(double width) const {
  if (kinds_.empty()) return 0;
  const QFontMetricsF fm(diagram_look::pixel_font(12));
  double x = 0, lines = 1;
  for (const auto& k : kinds_) {
    const double w = 44 + fm.horizontalAdvance(QString::fromStdString(k)) + 18;
    if (x + w > width && x > 0) {
      ++lines;
      x = 0;
    }
    x += w;
  }
  return 10 + lines * 20;
}

SequenceDiagram::Geometry SequenceDiagram::layout(const QRectF& area) const {
  Geometry g;
  const QRectF inner =
      area.adjusted(diagram_look::kMargin, diagram_look::kMargin, -diagram_look::kMargin, -diagram_look::kMargin);
  const double title_h = title_height();
  g.title = QRectF(inner.left(), inner.top(), inner.width(), title_h);
  const double legend_h = legend_height(inner.width() - diagram_look::kGutter);
  const double caption_h = caption_height(inner.width());
  g.header = QRectF(inner.left() + diagram_look::kGutter, g.title.bottom(), inner.width() - diagram_look::kGutter,
                    diagram_look::kHeaderH);
  const double room = inner.bottom() - g.header.bottom() - legend_h - (caption_h > 0 ? caption_h + 10 : 0) - 8;
  const double rows = static_cast<double>(std::max<std::size_t>(rows_.size(), 1));
  g.row_h = std::clamp(room / rows, 4.0, diagram_look::kMaxRowH);
  g.body = QRectF(g.header.left(), g.header.bottom() + 8, g.header.width(), g.row_h * rows);
  g.legend = QRectF(g.body.left(), g.body.bottom() + 6, g.body.width(), legend_h);
  g.caption = QRectF(inner.left(), g.legend.bottom() + 10, inner.width(), caption_h);
  return g;
}

double SequenceDiagram::preferred_height(double width, double row_height) const {
  const double title_h = title_height();
  const double inner_w = width - 2 * diagram_look::kMargin;
  const double caption_h = caption_height(inner_w);
  return 2 * diagram_look::kMargin + title_h + diagram_look::kHeaderH + 8 +
         row_height * static_cast<double>(std::max<std::size_t>(rows_.size(), 1)) + 6 +
         legend_height(inner_w - diagram_look::kGutter) + (caption_h > 0 ? caption_h + 10 : 0) + 8;
}

void SequenceDiagram::prepare(const QRectF& area) {
  geometry_ = layout(area);
  const double lane_w = geometry_.body.width() / static_cast<double>(std::max<std::size_t>(lanes_.size(), 1));
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    lanes_[i].x = geometry_.body.left() + (static_cast<double>(i) + 0.5) * lane_w;
}

void SequenceDiagram::paint(QPainter& p, const QRectF& area) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.fillRect(area, Qt::white);
  prepare(area);
  hits_.clear();
  fans_.clear();
  paint_title(p, geometry_.title);
  if (lanes_.empty()) {
    p.setFont(diagram_look::pixel_font(15, false, true));
    p.setPen(diagram_look::kMuted);
    p.drawText(area.adjusted(0, geometry_.title.height(), 0, 0), Qt::AlignCenter, content_.empty_text);
    p.restore();
    return;
  }
  p.setPen(QPen(QColor(0xb0, 0xbe, 0xc5), 1, Qt::DashLine));
  for (const auto& lane : lanes_)
    p.drawLine(QPointF(lane.x, geometry_.header.bottom()), QPointF(lane.x, geometry_.body.bottom()));
  paint_headers(p, geometry_);
  paint_time_gutter(p, geometry_);

  std::vector<DiagramContent::Arrow> order = content_.arrows;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return diagram_look::emphasis_rank(a.emphasis) < diagram_look::emphasis_rank(b.emphasis);
  });
  std::vector<QRectF> labels;
  for (const auto& a : order) paint_arrow(p, a, labels);
  paint_markers(p, labels);
  paint_now(p, geometry_);
  paint_legend(p, geometry_.legend);
  paint_caption(p, geometry_.caption);
  p.restore();
}

void SequenceDiagram::paint_pinned_headers(QPainter& p, double top) const {
  if (lanes_.empty() || top <= geometry_.header.top()) return;
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(QRectF(geometry_.body.left() - diagram_look::kGutter, top, geometry_.body.width() + diagram_look::kGutter,
                    diagram_look::kHeaderH + 2),
             QColor(255, 255, 255, 240));
  p.setPen(QColor(0xcf, 0xd8, 0xdc));
  p.drawLine(QPointF(geometry_.body.left() - diagram_look::kGutter, top + diagram_look::kHeaderH + 2),
             QPointF(geometry_.body.right(), top + diagram_look::kHeaderH + 2));
  p.translate(0, top - geometry_.header.top());
  paint_headers(p, geometry_);
  p.restore();
}

void SequenceDiagram::paint_title(QPainter& p, const QRectF& r) const {
  if (content_.title.isEmpty()) return;
  p.setPen(diagram_look::kInk);
  p.setFont(diagram_look::pixel_font(20, true));
  p.drawText(QRectF(r.left(), r.top(), r.width(), 28), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetricsF(p.font()).elidedText(content_.title, Qt::ElideRight, r.width()));
  double y = r.top() + 30;
  if (!content_.subtitle.isEmpty()) {
    p.setPen(diagram_look::kMuted);
    p.setFont(diagram_look::pixel_font(13));
    p.drawText(QRectF(r.left(), y, r.width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(p.font()).elidedText(content_.subtitle, Qt::ElideRight, r.width()));
    y += 20;
  }
  for (const auto& [lead, text] : content_.notes) {
    p.setPen(diagram_look::kInk);
    p.setFont(diagram_look::pixel_font(13, true));
    const double w = QFontMetricsF(p.font()).horizontalAdvance(lead + QStringLiteral(":  "));
    p.drawText(QRectF(r.left(), y, w, 18), Qt::AlignLeft | Qt::AlignVCenter, lead + QStringLiteral(":"));
    p.setFont(diagram_look::pixel_font(13));
    p.drawText(QRectF(r.left() + w, y, r.width() - w, 18), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(p.font()).elidedText(text, Qt::ElideRight, r.width() - w));
    y += 19;
  }
}

void SequenceDiagram::paint_headers(QPainter& p, const Geometry& g) const {
  const double lane_w = g.body.width() / static_cast<double>(lanes_.size());
  const double box_w = std::min(lane_w - 6, 150.0);
  const bool roomy = box_w >= 64;
  for (const auto& lane : lanes_) {
    const auto& party = model_->parties()[lane.party];
    const auto look = diagram_look::role_look(party.role);
    const QRectF box(lane.x - box_w / 2, g.header.top() + 2, box_w, g.header.height() - 4);
    p.setPen(QPen(look.edge, 1.5));
    p.setBrush(look.fill);
    p.drawRoundedRect(box, 6, 6);
    const QString name = diagram_look::short_name(party.name);
    p.setPen(diagram_look::kInk);
    if (!roomy) {
      p.setFont(diagram_look::pixel_font(11, true));
      p.drawText(box, Qt::AlignCenter, QFontMetricsF(p.font()).elidedText(name, Qt::ElideRight, box.width() - 2));
      continue;
    }
    p.setFont(diagram_look::pixel_font(10));
    p.setPen(diagram_look::mix(look.edge, diagram_look::kInk, 0.4));
    p.drawText(QRectF(box.left(), box.top() + 3, box.width(), 14), Qt::AlignCenter, look.caption);
    p.setFont(diagram_look::pixel_font(14, true));
    p.setPen(diagram_look::kInk);
    p.drawText(QRectF(box.left() + 2, box.top() + 16, box.width() - 4, box.height() - 18), Qt::AlignCenter,
               QFontMetricsF(p.font()).elidedText(name, Qt::ElideRight, box.width() - 6));
  }
}

void SequenceDiagram::paint_time_gutter(QPainter& p, const Geometry& g) const {
  const QRectF gutter(g.body.left() - diagram_look::kGutter, g.body.top(), diagram_look::kGutter - 8, g.body.height());
  const auto row_y = [&](std::size_t i) { return g.body.top() + (static_cast<double>(i) + 0.5) * g.row_h; };
  // Long waits first, at the gutter's left: they are what the rows hide.
  double last_gap = -1e9;
  for (std::size_t i = 1; i < rows_.size(); ++i) {
    if (rows_[i] - rows_[i - 1] < diagram_look::kGapShown) continue;
    const double mid = row_y(i) - g.row_h / 2;
    p.setPen(QPen(QColor(0xcf, 0xd8, 0xdc), 1, Qt::DotLine));
    p.drawLine(QPointF(gutter.left(), mid), QPointF(g.body.right(), mid));
    if (mid - last_gap < 13) continue;
    p.setFont(diagram_look::pixel_font(10, false, true));
    diagram_look::pill(p, QRectF(gutter.left(), mid - 7, 56, 14), diagram_look::span_text(rows_[i] - rows_[i - 1]),
                       diagram_look::kMuted, QColor());
    last_gap = mid;
  }
  p.setFont(diagram_look::pixel_font(11));
  double last_y = -1e9;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const double y = row_y(i);
    if (y - last_y < 13) continue;
    // A new moment gets its time; one a few microseconds on (the next hop) only how long after.
    const bool close = i > 0 && rows_[i] - rows_[i - 1] < diagram_look::kGapShown;
    const QString text = close ? diagram_look::span_text(rows_[i] - rows_[i - 1]) : diagram_look::time_text(rows_[i]);
    p.setPen(close ? QColor(0xa0, 0xb0, 0xb8) : diagram_look::kMuted);
    p.drawText(QRectF(gutter.left() + 58, y - 7, gutter.width() - 58, 14), Qt::AlignRight | Qt::AlignVCenter, text);
    last_y = y;
  }
}

void SequenceDiagram::paint_now(QPainter& p, const Geometry& g) const {
  if (!std::isfinite(content_.now) || rows_.empty()) return;
  if (content_.now < rows_.front()) return;
  double y = y_of(content_.now);
  if (content_.now > rows_.back()) y = std::min(y + g.row_h / 2, g.body.bottom());
  p.setPen(QPen(diagram_look::kNowColor, 1.5, Qt::DashLine));
  p.drawLine(QPointF(g.body.left() - diagram_look::kGutter, y), QPointF(g.body.right(), y));
  p.setFont(diagram_look::pixel_font(11, true));
  diagram_look::pill(p, QRectF(g.body.left() - diagram_look::kGutter, y - 8, diagram_look::kGutter - 10, 16),
                     QStringLiteral("now ") + diagram_look::time_text(content_.now), diagram_look::kNowColor,
                     diagram_look::kNowColor);
}

void SequenceDiagram::paint_arrow(QPainter& p, const DiagramContent::Arrow& a, std::vector<QRectF>& labels) {
  const auto& m = model_->messages()[a.message];
  const QColor base = kind_color(m.kind);
  const bool answer = is_answer(m.kind);
  const bool lost = !m.received_at;
  QColor color = base;
  double width = 2;
  if (a.emphasis == Emphasis::Strong) width = 3.2;
  if (a.emphasis == Emphasis::Dim || a.emphasis == Emphasis::Ghost) {
    color = diagram_look::mix(base, Qt::white, a.emphasis == Emphasis::Dim ? 0.78 : 0.6);
    width = a.emphasis == Emphasis::Dim ? 1.3 : 1.5;
  }

  const double y1 = y_of(m.sent_at);
  double y2 = lost ? y1 + geometry_.row_h : y_of(*m.received_at);
  QLineF line(lane_x(m.from), y1, lane_x(m.to), y2);
  if (m.from == m.to) line.setP2(QPointF(line.x1() + 24, std::max(y2, y1 + geometry_.row_h * 0.6)));
  double reach = lost ? 0.55 : 1.0;
  if (content_.cut_at_now && !lost && *m.received_at > content_.now && y2 > y1)
    reach = std::clamp((y_of(content_.now) - y1) / (y2 - y1), 0.05, 1.0);
  const QLineF drawn(line.p1(), line.pointAt(reach));

  if (a.message == content_.current_message) {
    p.setPen(QPen(QColor(0xff, 0xca, 0x28, 170), 12, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(drawn);
  }
  QPen pen(color, width, Qt::SolidLine, Qt::RoundCap);
  if (answer) pen.setDashPattern({5, 3});
  if (reach < 1) pen.setDashPattern({1.5, 2.5});
  p.setPen(pen);
  p.setBrush(Qt::NoBrush);
  p.drawLine(drawn);

  diagram_look::paint_head(p, drawn, color, width,
                           lost     ? diagram_look::Head::Lost
                           : answer ? diagram_look::Head::Open
                                    : diagram_look::Head::Filled);
  Hit hit{drawn, QRectF(), a.message};
  const QColor ink = a.emphasis == Emphasis::Dim ? diagram_look::mix(diagram_look::kMuted, Qt::white, 0.4)
                                                 : diagram_look::mix(color, diagram_look::kInk, 0.25);
  // A fan-out (the controller launching on many daemons at once) is labelled once.
  const Fan fan{m.from, m.sent_at, m.kind, a.emphasis};
  if (std::find(fans_.begin(), fans_.end(), fan) == fans_.end()) {
    fans_.push_back(fan);
    paint_label(p, drawn, QString::fromStdString(m.kind), ink, a.emphasis == Emphasis::Strong, labels, hit);
  }
  hits_.push_back(hit);
}

void SequenceDiagram::paint_label(QPainter& p, const QLineF& line, const QString& text, const QColor& color, bool bold,
                                  std::vector<QRectF>& labels, Hit& hit) const {
  p.setFont(diagram_look::pixel_font(12, bold));
  const QFontMetricsF fm(p.font());
  const QSizeF size(fm.horizontalAdvance(text) + 8, fm.height() + 2);
  for (double at : {0.5, 0.32, 0.68, 0.2, 0.8}) {
    const QPointF c = line.pointAt(at);
    const QRectF r(c.x() - size.width() / 2, c.y() - size.height() / 2, size.width(), size.height());
    const bool clash = std::any_of(labels.begin(), labels.end(), [&](const QRectF& o) { return o.intersects(r); });
    if (clash) continue;
    diagram_look::pill(p, r, text, color, bold ? color : QColor());
    labels.push_back(r);
    hit.label = r;
    return;
  }
}

void SequenceDiagram::paint_markers(QPainter& p, std::vector<QRectF>& labels) const {
  const auto events = model_->events();
  for (const auto& mk : content_.markers) {
    if (mk.event >= events.size()) continue;
    const auto& e = events[mk.event];
    const QPointF c(lane_x(e.who), y_of(e.t));
    if (!mk.current) {
      p.setPen(QPen(Qt::white, 1));
      p.setBrush(QColor(0x78, 0x90, 0x9c));
      p.drawEllipse(c, 4, 4);
      continue;
    }
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xff, 0xca, 0x28, 170));
    p.drawEllipse(c, 12, 12);
    p.setPen(QPen(Qt::white, 1.5));
    p.setBrush(diagram_look::kInk);
    p.drawEllipse(c, 5.5, 5.5);
    p.setFont(diagram_look::pixel_font(12, true));
    const QString text =
        QString::fromUtf8(log::spec(e.kind).name.data(), static_cast<int>(log::spec(e.kind).name.size()));
    const double w = QFontMetricsF(p.font()).horizontalAdvance(text) + 10;
    QRectF r(c.x() + 16, c.y() - 9, w, 18);
    if (r.right() > geometry_.body.right()) r.moveRight(c.x() - 16);
    diagram_look::pill(p, r, text, diagram_look::kInk, QColor(0xf9, 0xa8, 0x25));
    labels.push_back(r);
  }
}

void SequenceDiagram::paint_legend(QPainter& p, const QRectF& r) const {
  if (kinds_.empty()) return;
  p.setFont(diagram_look::pixel_font(12));
  const QFontMetricsF fm(p.font());
  double x = r.left(), y = r.top() + 10;
  for (const auto& k : kinds_) {
    const QString text = QString::fromStdString(k);
    const double w = 44 + fm.horizontalAdvance(text) + 18;
    if (x + w > r.right() && x > r.left()) {
      x = r.left();
      y += 20;
    }
    const QColor c = kind_color(k);
    QPen pen(c, 2);
    if (is_answer(k)) pen.setDashPattern({5, 3});
    p.setPen(pen);
    const QPointF a(x + 2, y + 8), b(x + 36, y + 8);
    p.drawLine(a, b);
    p.setPen(QPen(c, 2));
    p.setBrush(is_answer(k) ? Qt::NoBrush : QBrush(c));
    const QPolygonF headshape({b + QPointF(-8, -4), b, b + QPointF(-8, 4)});
    if (is_answer(k))
      p.drawPolyline(headshape);
    else
      p.drawPolygon(headshape);
    p.setPen(diagram_look::kInk);
    p.drawText(QRectF(x + 42, y, w - 42, 16), Qt::AlignLeft | Qt::AlignVCenter, text);
    x += w;
  }
}

void SequenceDiagram::paint_caption(QPainter& p, const QRectF& r) const {
  if (!content_.caption || r.height() <= 0) return;
  p.setPen(QPen(QColor(0xf9, 0xa8, 0x25), 1.5));
  p.setBrush(QColor(0xff, 0xfd, 0xe7));
  p.drawRoundedRect(r, 8, 8);
  const QRectF in = r.adjusted(16, 10, -16, -10);
  p.setPen(diagram_look::kMuted);
  p.setFont(diagram_look::pixel_font(12));
  p.drawText(QRectF(in.left(), in.top(), in.width(), 18), Qt::AlignRight | Qt::AlignVCenter, content_.caption_step);
  p.setPen(diagram_look::kInk);
  p.setFont(diagram_look::pixel_font(16, true));
  p.drawText(QRectF(in.left(), in.top(), in.width() - 110, 22), Qt::AlignLeft | Qt::AlignVCenter,
             QString::fromStdString(content_.caption->title));
  p.setFont(diagram_look::pixel_font(14));
  const QRectF text(in.left(), in.top() + 26, in.width(), in.height() - 26 - 22);
  p.drawText(text, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, QString::fromStdString(content_.caption->text));
  p.setPen(QColor(0x37, 0x47, 0x4f));
  p.setFont(diagram_look::pixel_font(12, false, true));
  p.drawText(QRectF(in.left(), in.bottom() - 18, in.width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
             QString::fromStdString(content_.caption->section));
}

std::optional<std::uint32_t> SequenceDiagram::message_at(QPointF pos) const {
  for (auto it = hits_.rbegin(); it != hits_.rend(); ++it)
    if (it->label.contains(pos)) return it->message;
  std::optional<std::uint32_t> best;
  double best_d = 6;
  for (auto it = hits_.rbegin(); it != hits_.rend(); ++it) {
    const double d = diagram_look::distance(it->line, pos);
    if (d < best_d) {
      best_d = d;
      best = it->message;
    }
  }
  return best;
}

}  // namespace pmixflow::gui
