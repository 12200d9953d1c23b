#include "compare_pane.hpp"

#include <QAbstractButton>
#include <QAbstractTableModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "export.hpp"

namespace pmixflow::gui {

namespace {

QString signed_duration(double d) { return (d > 0 ? "+" : "") + format_duration(d); }

QString start_text(double t) { return QString::number(t, 'f', std::abs(t) < 1e5 ? 2 : 0); }

}  // namespace

// The moved jobs as rows (job, start in A, start in B, Δ), sorted on numbers rather than on
// their text: the sort role is the value itself, and |Δ| for the Δ column.
class MovedJobsModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void reset(const std::vector<view::MovedJob>* rows) {
    beginResetModel();
    rows_ = rows;
    endResetModel();
  }
  int rowCount(const QModelIndex& parent) const override {
    return parent.isValid() || !rows_ ? 0 : static_cast<int>(rows_->size());
  }
  int columnCount(const QModelIndex& parent) const override { return parent.isValid() ? 0 : 4; }
  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const names[] = {"job", "start A (s)", "start B (s)", "Δ start"};
    return names[section];
  }
  QVariant data(const QModelIndex& index, int role) const override {
    const auto& m = (*rows_)[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    if (role == Qt::UserRole) {
      if (c == 0) return index.row();  // the comparison's own order: |Δ|, then job
      return c == 1 ? m.start_a : c == 2 ? m.start_b : std::abs(m.delta());
    }
    if (role == Qt::TextAlignmentRole && c > 0) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole)
      return QString("%1: starts at %2 in A, %3 in B (%4)")
          .arg(QString::fromStdString(m.job), format_moment(m.start_a), format_moment(m.start_b),
               signed_duration(m.delta()));
    if (role != Qt::DisplayRole) return {};
    if (c == 0) return QString::fromStdString(m.job);
    return c == 1 ? start_text(m.start_a) : c == 2 ? start_text(m.start_b) : signed_duration(m.delta());
  }

 private:
  const std::vector<view::MovedJob>* rows_ = nullptr;
};

ComparePane::ComparePane(const view::RunModel* b, QWidget* parent) : Pane(parent), b_(b) {
  gantt_a_ = new GanttPane;
  gantt_b_ = new GanttPane;
  for (GanttPane* g : {gantt_a_, gantt_b_}) {
    g->set_buttons_visible(false);
    connect(g, &Pane::seek, this, &Pane::seek);
  }
  // One time axis: what one chart shows, the other shows.
  connect(gantt_a_, &GanttPane::window_changed, gantt_b_, &GanttPane::set_window);
  connect(gantt_b_, &GanttPane::window_changed, gantt_a_, &GanttPane::set_window);
  connect(gantt_a_, &Pane::selected, this, &ComparePane::picked_in_a);
  connect(gantt_b_, &Pane::selected, this, &ComparePane::picked_in_b);

  rows_ = new MovedJobsModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(rows_);
  sorted_->setSortRole(Qt::UserRole);
  table_ = new QTableView;
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (!syncing_ && current.isValid()) picked_row(current.row());
  });

  summary_ = new QLabel;
  summary_->setWordWrap(true);
  export_button_ = make_export_button(*this);
  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(export_button_);
  auto* charts = new QSplitter(Qt::Vertical);
  charts->addWidget(gantt_a_);
  charts->addWidget(gantt_b_);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(charts);
  split->addWidget(table_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(split, 1);
}

void ComparePane::set_model(const view::RunModel* model) {
  a_ = model;
  recompare();
}

void ComparePane::set_time(double t) {
  gantt_a_->set_time(t);
  gantt_b_->set_time(t);
}

void ComparePane::set_selection(const Selection& s) {
  std::uint32_t in_a = s.request;
  if (in_a == view::kNone && s.session != view::kNone && a_ && s.session < a_->sessions().size())
    in_a = a_->find_request(a_->sessions()[s.session].corr).value_or(view::kNone);
  std::uint32_t in_b = view::kNone;
  if (in_a != view::kNone && a_ && b_ && in_a < a_->requests().size())
    in_b = b_->find_request(a_->requests()[in_a].corr).value_or(view::kNone);
  show_job(in_a, in_b);
}

void ComparePane::set_run_names(const QString& a, const QString& b) {
  name_a_ = a;
  name_b_ = b;
  retitle();
  update();
}

void ComparePane::recompare() {
  comparison_ = a_ && b_ ? view::compare_runs(*a_, *b_) : view::Comparison{};
  row_of_a_.assign(a_ ? a_->requests().size() : 0, view::kNone);
  for (std::size_t i = 0; i < comparison_.moved.size(); ++i)
    row_of_a_[comparison_.moved[i].request_a] = static_cast<std::uint32_t>(i);
  gantt_a_->set_model(a_);
  // Without run A the pane is being emptied (the main window drops the comparison), and run B
  // may go with it.
  gantt_b_->set_model(a_ ? b_ : nullptr);
  gantt_a_->set_emphasis(comparison_.moved_in_a);
  gantt_b_->set_emphasis(comparison_.moved_in_b);
  double lo = 0, hi = 1;
  if (a_) {
    lo = std::min(a_->start_time(), b_ ? b_->start_time() : INFINITY);
    hi = std::max(a_->end_time(), b_ ? b_->end_time() : -INFINITY);
  }
  gantt_a_->set_time_limits(lo, hi);
  gantt_b_->set_time_limits(lo, hi);
  gantt_b_->set_window(gantt_a_->window().t0, gantt_a_->window().t1);
  rows_->reset(&comparison_.moved);
  retitle();
  summary_->setText(summary_text());
}

void ComparePane::retitle() {
  gantt_a_->set_title({});
  gantt_b_->set_title({});
  gantt_a_->set_title(name_a_ + " — " + gantt_a_->title());
  gantt_b_->set_title(name_b_ + " — " + gantt_b_->title());
}

QString ComparePane::summary_text() const {
  if (!a_ || !b_) return "Two runs are needed to compare.";
  const auto& s = comparison_.summary;
  QString text =
      QString("%1 vs %2: %3 of %4 jobs started at another time").arg(name_b_, name_a_).arg(s.moved).arg(s.matched);
  if (s.moved > 0)
    text += QString(" (mean |Δ start| %1 over all jobs, %2 over the moved ones, largest %3; mean Δ %4)")
                .arg(format_duration(s.mean_abs_delta), format_duration(s.mean_abs_delta_moved),
                     format_duration(s.max_abs_delta), signed_duration(s.mean_delta));
  if (s.only_a + s.only_b > 0)
    text += QString("; %1 only in %2, %3 only in %4").arg(s.only_a).arg(name_a_).arg(s.only_b).arg(name_b_);
  return text + ".";
}

void ComparePane::show_job(std::uint32_t in_a, std::uint32_t in_b) {
  selected_a_ = in_a;
  gantt_a_->set_selection(Selection{.request = in_a});
  gantt_b_->set_selection(Selection{.request = in_b});
  syncing_ = true;
  const std::uint32_t row = in_a < row_of_a_.size() ? row_of_a_[in_a] : view::kNone;
  if (row == view::kNone) {
    table_->selectionModel()->clearSelection();
  } else {
    const QModelIndex index = sorted_->mapFromSource(rows_->index(static_cast<int>(row), 0));
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index);
  }
  syncing_ = false;
  bring_into_view(in_a);
}

void ComparePane::picked_in_a(const Selection& s) {
  std::uint32_t in_b = view::kNone;
  if (s.request != view::kNone && b_) in_b = b_->find_request(a_->requests()[s.request].corr).value_or(view::kNone);
  show_job(s.request, in_b);
  emit selected(Selection{.request = s.request});
}

void ComparePane::picked_in_b(const Selection& s) {
  std::uint32_t in_a = view::kNone;
  if (s.request != view::kNone && a_) in_a = a_->find_request(b_->requests()[s.request].corr).value_or(view::kNone);
  show_job(in_a, s.request);
  emit selected(Selection{.request = in_a});
}

void ComparePane::picked_row(int proxy_row) {
  const int row = sorted_->mapToSource(sorted_->index(proxy_row, 0)).row();
  if (row < 0 || static_cast<std::size_t>(row) >= comparison_.moved.size()) return;
  const auto& m = comparison_.moved[static_cast<std::size_t>(row)];
  show_job(m.request_a, m.request_b);
  emit selected(Selection{.request = m.request_a});
}

// Pans (and widens if it must) the shared window so that the job's start is seen in both runs.
void ComparePane::bring_into_view(std::uint32_t in_a) {
  const auto row = in_a < row_of_a_.size() ? row_of_a_[in_a] : view::kNone;
  if (row == view::kNone) return;
  const auto& m = comparison_.moved[row];
  const TimeWindow& w = gantt_a_->window();
  const double lo = std::min(m.start_a, m.start_b), hi = std::max(m.start_a, m.start_b);
  if (lo >= w.t0 && hi <= w.t1) return;
  const double span = std::max(w.span(), (hi - lo) * 1.4);
  const double mid = (lo + hi) / 2;
  gantt_a_->set_window(mid - span / 2, mid + span / 2);
  gantt_b_->set_window(gantt_a_->window().t0, gantt_a_->window().t1);
}

void ComparePane::paint_picture(QPainter& painter, QSize size) {
  painter.save();
  painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  painter.setFont(chart::font());
  painter.setPen(chart::kText);
  const QRectF header(8, 4, size.width() - 16, 34);
  painter.drawText(header, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, summary_text());
  const bool list = !comparison_.moved.empty();
  const int charts_width = list ? static_cast<int>(size.width() * 0.74) : size.width();
  const int top = 40, each = (size.height() - top) / 2;
  painter.translate(0, top);
  gantt_a_->paint_picture(painter, QSize(charts_width, each));
  painter.translate(0, each);
  gantt_b_->paint_picture(painter, QSize(charts_width, each));
  painter.restore();
  if (list)
    paint_list(painter, QRectF(charts_width + 8, top, size.width() - charts_width - 16, size.height() - top - 8));
}

// The moved jobs as the list shows them, as many as fit, largest move first.
void ComparePane::paint_list(QPainter& p, const QRectF& area) {
  p.save();
  p.setFont(chart::title_font());
  p.setPen(chart::kText);
  const QFontMetricsF title(p.font());
  p.drawText(QPointF(area.left(), area.top() + 6 + title.ascent()),
             QString("Moved jobs (%1)").arg(comparison_.moved.size()));
  p.setFont(chart::font());
  const QFontMetricsF fm(p.font());
  const double line = fm.height() + 3;
  const double cols[] = {area.left(), area.left() + area.width() * 0.36, area.left() + area.width() * 0.64,
                         area.right()};
  const auto row = [&](double y, const QString& job, const QString& a, const QString& b, const QString& d) {
    p.drawText(QPointF(cols[0], y), fm.elidedText(job, Qt::ElideRight, cols[1] - cols[0] - 40));
    for (const auto& [text, right] : {std::pair{a, cols[1] + 20}, std::pair{b, cols[2]}, std::pair{d, cols[3]}})
      p.drawText(QPointF(right - fm.horizontalAdvance(text), y), text);
  };
  double y = area.top() + 30 + fm.ascent();
  p.setPen(QColor(0x60, 0x60, 0x60));
  row(y, "job", name_a_ + " start", name_b_ + " start", "Δ start");
  p.drawLine(QPointF(area.left(), y + 4), QPointF(area.right(), y + 4));
  p.setPen(chart::kText);
  const auto fits = static_cast<std::size_t>(std::max(0.0, (area.bottom() - y - line) / line));
  const std::size_t shown = std::min(comparison_.moved.size(), fits > 0 ? fits - 1 : 0);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& m = comparison_.moved[i];
    y += line;
    if (m.request_a == selected_a_)
      p.fillRect(QRectF(area.left() - 4, y - fm.ascent() - 2, area.width() + 8, line), QColor(0xdd, 0xe8, 0xf6));
    row(y, QString::fromStdString(m.job), start_text(m.start_a), start_text(m.start_b), signed_duration(m.delta()));
  }
  if (shown < comparison_.moved.size())
    p.drawText(QPointF(area.left(), y + line), QString("… and %1 more").arg(comparison_.moved.size() - shown));
  p.restore();
}

}  // namespace pmixflow::gui
