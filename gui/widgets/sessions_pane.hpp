// Sessions: those that exist at the current time (and, on request, those already reclaimed),
// with their state, allocation, owner, nodes, jobs and time limit. Selecting one highlights its
// nodes and its messages in the other panes.
#pragma once

#include <QAbstractTableModel>
#include <QCheckBox>
#include <QTableView>

#include <vector>

#include "pane.hpp"

namespace pmixflow::gui {

class SessionTable : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, State, Alloc, Owner, Nodes, Jobs, TimeLimit, Columns };
  using QAbstractTableModel::QAbstractTableModel;
  void show(const view::RunModel* model, double t, bool with_reclaimed);
  std::uint32_t session_at(int row) const { return rows_.at(static_cast<std::size_t>(row)); }
  int row_of(std::uint32_t session) const;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  // The text of one cell, for pictures as for the table.
  QString text(std::uint32_t session, int column) const;

 private:
  const view::RunModel* model_ = nullptr;
  double time_ = 0;
  std::vector<std::uint32_t> rows_;
};

class SessionsPane : public Pane {
  Q_OBJECT
 public:
  explicit SessionsPane(QWidget* parent = nullptr);
  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return QStringLiteral("sessions"); }

 private:
  void refresh();

  const view::RunModel* model_ = nullptr;
  double time_ = 0;
  Selection selection_;
  SessionTable* table_ = nullptr;
  QTableView* view_ = nullptr;
  QCheckBox* reclaimed_ = nullptr;
  bool updating_ = false;
};

}  // namespace pmixflow::gui
