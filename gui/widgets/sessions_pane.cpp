#include "sessions_pane.hpp"

#include <QHeaderView>
#include <QVBoxLayout>

#include <algorithm>

#include "palette.hpp"

namespace pmixflow::gui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }

QString node_names(const view::RunModel& m, const std::vector<std::uint32_t>& nodes) {
  QString out;
  for (std::size_t i = 0; i < nodes.size() && i < 4; ++i)
    out += (i ? QStringLiteral(",") : QString()) + QString::fromStdString(m.nodes()[nodes[i]].name);
  if (nodes.size() > 4) out += QStringLiteral(",…");
  return QStringLiteral("%1: %2").arg(nodes.size()).arg(out);
}

QString duration(double s) {
  if (s <= 0) return QStringLiteral("none");
  if (s < 120) return QStringLiteral("%1 s").arg(s, 0, 'g', 4);
  if (s < 7200) return QStringLiteral("%1 min").arg(s / 60, 0, 'g', 3);
  return QStringLiteral("%1 h").arg(s / 3600, 0, 'g', 3);
}

}  // namespace

void SessionTable::show(const view::RunModel* model, double t, bool with_reclaimed) {
  beginResetModel();
  model_ = model;
  time_ = t;
  rows_.clear();
  if (model) {
    for (std::uint32_t i = 0; i < model->sessions().size(); ++i) {
      const auto phase = view::phase_at(model->sessions()[i], t);
      if (!phase) continue;
      if (*phase == view::SessionPhase::Reclaimed && !with_reclaimed) continue;
      rows_.push_back(i);
    }
  }
  endResetModel();
}

int SessionTable::row_of(std::uint32_t session) const {
  const auto it = std::find(rows_.begin(), rows_.end(), session);
  return it == rows_.end() ? -1 : static_cast<int>(it - rows_.begin());
}

int SessionTable::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int SessionTable::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Columns; }

QString SessionTable::text(std::uint32_t session, int column) const {
  const auto& s = model_->sessions()[session];
  switch (column) {
    case Id: return QString::number(s.id);
    case State: return qs(view::phase_name(view::phase_at(s, time_).value_or(view::SessionPhase::Instantiating)));
    case Alloc: return QString::fromStdString(s.alloc);
    case Owner: return QString::fromStdString(s.owner);
    case Nodes: return node_names(*model_, s.nodes);
    case Jobs: {
      QString out = QString::number(s.jobs.size());
      if (!s.jobs.empty()) out += QStringLiteral(": ") + QString::fromStdString(model_->jobs()[s.jobs.front()].nspace);
      if (s.jobs.size() > 1) out += QStringLiteral(",…");
      return out;
    }
    case TimeLimit:
      if (s.time_limit <= 0) return duration(0);
      // As the RM holds it: an EXTEND re-arms the limit from its own time.
      return QStringLiteral("%1 from %2 s").arg(duration(s.time_limit)).arg(s.limit_from, 0, 'f', 1);
    default: return {};
  }
}

QVariant SessionTable::data(const QModelIndex& index, int role) const {
  if (!model_ || !index.isValid()) return {};
  const auto session = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) return text(session, index.column());
  const auto& s = model_->sessions()[session];
  if (role == Qt::BackgroundRole && index.column() == State)
    return phase_colour(view::phase_at(s, time_).value_or(view::SessionPhase::Instantiating));
  if (role == Qt::DecorationRole && index.column() == Id) return session_colour(s.id);
  return {};
}

QVariant SessionTable::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Session", "State", "Allocation", "Owner", "Nodes", "Jobs", "Time limit"};
  return tr(names[section]);
}

SessionsPane::SessionsPane(QWidget* parent) : Pane(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  reclaimed_ = new QCheckBox(tr("Show reclaimed sessions"), this);
  table_ = new SessionTable(this);
  view_ = new QTableView(this);
  view_->setModel(table_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
  view_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(reclaimed_);
  layout->addWidget(view_, 1);
  connect(reclaimed_, &QCheckBox::toggled, this, [this] { refresh(); });
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (updating_ || !i.isValid()) return;
    Selection s;
    s.session = table_->session_at(i.row());
    emit selected(s);
  });
}

void SessionsPane::set_model(const view::RunModel* model) {
  model_ = model;
  refresh();
  // Once per model, not at every frame of a playback: it measures every visible cell.
  view_->resizeColumnsToContents();
}
void SessionsPane::set_time(double t) {
  time_ = t;
  refresh();
}
void SessionsPane::set_selection(const Selection& s) {
  selection_ = s;
  refresh();
}

void SessionsPane::refresh() {
  updating_ = true;
  table_->show(model_, time_, reclaimed_->isChecked());
  const int row = selection_.session == view::kNone ? -1 : table_->row_of(selection_.session);
  if (row >= 0)
    view_->selectRow(row);
  else
    view_->clearSelection();
  updating_ = false;
}

void SessionsPane::paint_picture(QPainter& p, QSize size) {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  if (!model_) return;
  const double row_h = 22;
  const double widths[] = {0.09, 0.11, 0.13, 0.11, 0.19, 0.15, 0.22};
  QFont bold = p.font();
  bold.setBold(true);
  auto row_cells = [&](double y, const auto& cell_text, const QColor& state_bg) {
    double x = 4;
    for (int c = 0; c < SessionTable::Columns; ++c) {
      const double w = widths[c] * (size.width() - 8);
      const QRectF r(x, y, w, row_h);
      if (c == SessionTable::State && state_bg.isValid()) p.fillRect(r.adjusted(1, 1, -1, -1), state_bg);
      p.drawText(r.adjusted(4, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, cell_text(c));
      x += w;
    }
  };
  p.setPen(QColor(0x22, 0x22, 0x22));
  p.setFont(bold);
  row_cells(
      0, [&](int c) { return table_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString(); }, QColor());
  p.setFont(QFont(p.font().family(), p.font().pointSize()));
  double y = row_h;
  for (int row = 0; row < table_->rowCount() && y + row_h <= size.height(); ++row, y += row_h) {
    const auto s = table_->session_at(row);
    const auto& rec = model_->sessions()[s];
    if (s == selection_.session) p.fillRect(QRectF(0, y, size.width(), row_h), QColor(0xff, 0xf3, 0xc4));
    p.fillRect(QRectF(0, y + 3, 4, row_h - 6), session_colour(rec.id));
    row_cells(
        y, [&](int c) { return table_->text(s, c); },
        phase_colour(view::phase_at(rec, time_).value_or(view::SessionPhase::Instantiating)));
    p.setPen(QColor(0xe0, 0xe0, 0xe0));
    p.drawLine(QPointF(0, y + row_h), QPointF(size.width(), y + row_h));
    p.setPen(QColor(0x22, 0x22, 0x22));
  }
  if (table_->rowCount() == 0) p.drawText(QRectF(4, row_h, size.width(), row_h), tr("No session at this time"));
}

}  // namespace pmixflow::gui
