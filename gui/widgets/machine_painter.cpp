#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

#include "machine_pane.hpp"
#include "palette.hpp"

namespace pmixflow::gui {

namespace {

constexpr double kGroupTitle = 18;  // height of a group's name above its cells
constexpr double kGap = 0.12;       // between cells, as a part of a cell

QString group_label(const view::RunModel& m, const view::Group& g) {
  const auto& first = m.nodes()[g.nodes.front()].name;
  const auto& last = m.nodes()[g.nodes.back()].name;
  const QString range = g.nodes.size() == 1
                            ? QString::fromStdString(first)
                            : QString::fromStdString(first) + QStringLiteral("–") + QString::fromStdString(last);
  return range + QStringLiteral("  (%1 node%2)").arg(g.nodes.size()).arg(g.nodes.size() == 1 ? "" : "s");
}

// The largest square cell with which every group, each on its own rows, fits in `area`.
double fit_cell(const std::vector<view::Group>& groups, QSizeF area) {
  double lo = 1, hi = std::max(area.width(), 1.0);
  for (int i = 0; i < 40; ++i) {
    const double c = (lo + hi) / 2;
    const auto per_row = std::max(1.0, std::floor(area.width() / c));
    double height = 0;
    for (const auto& g : groups) height += kGroupTitle + std::ceil(static_cast<double>(g.nodes.size()) / per_row) * c;
    (height <= area.height() ? lo : hi) = c;
  }
  return std::min(lo, 160.0);
}

}  // namespace

void MachinePainter::layout(const view::RunModel& model, QRectF area) {
  const auto& groups = model.groups();
  cells_.assign(model.nodes().size(), QRectF());
  labels_.clear();
  if (groups.empty()) return;
  cell_ = fit_cell(groups, area.size());
  const auto per_row = static_cast<std::size_t>(std::max(1.0, std::floor(area.width() / cell_)));
  double y = area.top();
  for (const auto& g : groups) {
    labels_.push_back(Label{QRectF(area.left(), y, area.width(), kGroupTitle), group_label(model, g)});
    y += kGroupTitle;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const double x = area.left() + static_cast<double>(i % per_row) * cell_;
      const double top = y + static_cast<double>(i / per_row) * cell_;
      const double pad = cell_ * kGap / 2;
      cells_[g.nodes[i]] = QRectF(x + pad, top + pad, cell_ - 2 * pad, cell_ - 2 * pad);
    }
    y += std::ceil(static_cast<double>(g.nodes.size()) / static_cast<double>(per_row)) * cell_;
  }
}

std::uint32_t MachinePainter::node_at(QPointF point) const {
  for (std::uint32_t i = 0; i < cells_.size(); ++i)
    if (cells_[i].contains(point)) return i;
  return view::kNone;
}

void MachinePainter::paint(QPainter& p, const Input& in, const QRectF& visible) const {
  if (!in.model || !in.state) return;
  p.setPen(QColor(0x44, 0x44, 0x44));
  QFont title = p.font();
  title.setBold(true);
  p.save();
  p.setFont(title);
  for (const auto& l : labels_)
    if (l.rect.intersects(visible)) p.drawText(l.rect, Qt::AlignLeft | Qt::AlignVCenter, l.text);
  p.restore();
  const auto n = std::min(cells_.size(), in.state->nodes().size());
  for (std::uint32_t i = 0; i < n; ++i)
    if (cells_[i].intersects(visible)) paint_cell(p, in, i);
}

void MachinePainter::paint_cell(QPainter& p, const Input& in, std::uint32_t node) const {
  const auto& r = cells_[node];
  const auto& st = in.state->nodes()[node];
  const auto look = view::look_of(st);
  const bool chosen_session = in.selection.session != view::kNone &&
                              st.session == in.model->sessions()[in.selection.session].id && st.sessions > 0;
  const bool dim = in.selection.session != view::kNone && !chosen_session;
  QColor fill = look_colour(look);
  if (dim) {
    // Faded towards white, but still there: the rest of the machine stays readable.
    fill = QColor::fromRgbF(fill.redF() * 0.45f + 0.55f, fill.greenF() * 0.45f + 0.55f, fill.blueF() * 0.45f + 0.55f);
  }
  p.fillRect(r, fill);
  if (dim && r.width() >= 6) {
    p.setPen(QPen(QColor(0xc8, 0xc8, 0xc8), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
  }
  const double s = r.width();
  // A session's own colour along the top of every node it holds: which nodes are in which
  // session reads at a glance, whatever their state.
  if (st.sessions > 0 && st.session != view::kNone)
    p.fillRect(QRectF(r.left(), r.top(), s, std::max(2.0, s * 0.18)), session_colour(st.session));
  if (look == view::NodeLook::Failed && s >= 6) {
    p.setPen(QPen(Qt::white, std::max(1.0, s / 12)));
    p.drawLine(r.topLeft() + QPointF(s * .2, s * .2), r.bottomRight() - QPointF(s * .2, s * .2));
    p.drawLine(r.topRight() + QPointF(-s * .2, s * .2), r.bottomLeft() + QPointF(s * .2, -s * .2));
  }
  const bool matched = in.matches && std::binary_search(in.matches->begin(), in.matches->end(), node);
  if (chosen_session || matched || in.selection.node == node) {
    p.setPen(QPen(matched ? QColor(0xd6, 0x27, 0x28) : Qt::black, std::clamp(s / 20, 1.5, 4.0)));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
  }
  if (s < 44) return;
  // Big enough to read: the name, its session and its job.
  const auto& rec = in.model->nodes()[node];
  QString text = QString::fromStdString(rec.name);
  if (st.sessions == 1) text += QStringLiteral("\nsession %1").arg(st.session);
  if (st.sessions > 1) text += QStringLiteral("\nsessions %1 +%2").arg(st.session).arg(st.sessions - 1);
  if (st.job != view::kNone) text += QStringLiteral("\n") + QString::fromStdString(in.model->jobs()[st.job].nspace);
  QFont f = p.font();
  f.setPixelSize(static_cast<int>(std::clamp(s / 6.5, 8.0, 14.0)));
  p.save();
  p.setFont(f);
  const bool dark = look == view::NodeLook::Running || look == view::NodeLook::Failed;
  p.setPen(dark ? Qt::white : QColor(0x22, 0x22, 0x22));
  p.drawText(r.adjusted(3, s * 0.2, -3, -3), Qt::AlignCenter | Qt::TextWordWrap, text);
  p.restore();
}

void MachinePainter::paint_legend(QPainter& p, const Input& in, QRectF area) const {
  if (!in.state) return;
  const auto census = in.state->census();
  QFontMetricsF fm(p.font());
  double x = area.left(), y = area.top() + 4;
  const double box = 12;
  for (std::size_t i = 0; i < view::kLookCount; ++i) {
    const auto look = static_cast<view::NodeLook>(i);
    const QString text =
        QString::fromUtf8(view::look_name(look).data(), static_cast<int>(view::look_name(look).size())) +
        QStringLiteral(" (%1)").arg(census[i]);
    const double w = box + 6 + fm.horizontalAdvance(text) + 18;
    if (x + w > area.right() && x > area.left()) {
      x = area.left();
      y += 20;
    }
    p.fillRect(QRectF(x, y, box, box), look_colour(look));
    p.setPen(QColor(0x88, 0x88, 0x88));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(x, y, box, box));
    p.setPen(QColor(0x22, 0x22, 0x22));
    p.drawText(QRectF(x + box + 6, y - 3, w, box + 6), Qt::AlignLeft | Qt::AlignVCenter, text);
    x += w;
  }
}

}  // namespace pmixflow::gui
