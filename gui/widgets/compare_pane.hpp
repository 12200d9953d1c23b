// Two runs of one workload, one above the other on one time axis: the jobs that started at
// another time in colour in both charts, the others grey, and the list of those jobs, largest
// move first. Picking a job in either chart or in the list shows it in both. The pane's own
// model (set_model) is run A, the one its selections refer to; run B is given at construction.
#pragma once

#include "gantt_pane.hpp"
#include "pane.hpp"
#include "pmixflow/view/comparison.hpp"

class QAbstractButton;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace pmixflow::gui {

class MovedJobsModel;

class ComparePane : public Pane {
  Q_OBJECT
 public:
  explicit ComparePane(const view::RunModel* b, QWidget* parent = nullptr);

  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return "compare"; }

  const view::Comparison& comparison() const { return comparison_; }
  // What the two charts are called ("A", "B" by default; "easy", "fcfs", ...).
  void set_run_names(const QString& a, const QString& b);

 private:
  void recompare();
  void retitle();
  QString summary_text() const;
  // Shows one job in both charts and the list; requests are each run's indices (kNone: absent).
  void show_job(std::uint32_t in_a, std::uint32_t in_b);
  void picked_in_a(const Selection& s);
  void picked_in_b(const Selection& s);
  void picked_row(int proxy_row);
  // Only moved jobs: the others start at the same time in both runs.
  void bring_into_view(std::uint32_t in_a);
  void paint_list(QPainter& p, const QRectF& area);

  const view::RunModel* a_ = nullptr;
  const view::RunModel* b_ = nullptr;
  view::Comparison comparison_;
  std::vector<std::uint32_t> row_of_a_;  // per request of A: its row in comparison_.moved, or kNone
  std::uint32_t selected_a_ = view::kNone;
  QString name_a_ = "A", name_b_ = "B";
  GanttPane* gantt_a_ = nullptr;
  GanttPane* gantt_b_ = nullptr;
  QLabel* summary_ = nullptr;
  QTableView* table_ = nullptr;
  MovedJobsModel* rows_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QAbstractButton* export_button_ = nullptr;
  bool syncing_ = false;  // while the pane itself moves the list's current row
};

}  // namespace pmixflow::gui
