// The machine: every node a cell, grouped as the platform names them, coloured by what the log
// says of it at the current time, with a legend that counts each colour. Thousands of nodes
// stay legible: the wheel zooms, a drag pans, the search box finds a node, a session or a job,
// and hovering a cell tells its name, slots, session and job.
#pragma once

#include <QLineEdit>
#include <QRectF>

#include <vector>

#include "pane.hpp"

namespace pmixflow::gui {

class MachineCanvas;

class MachinePane : public Pane {
  Q_OBJECT
 public:
  explicit MachinePane(QWidget* parent = nullptr);
  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return QStringLiteral("machine"); }

  // The nodes the search box matches (indices into RunModel::nodes()).
  const std::vector<std::uint32_t>& matches() const;

 private:
  void search(const QString& text);

  QLineEdit* search_ = nullptr;
  MachineCanvas* canvas_ = nullptr;
};

// The painting itself, for the screen and for pictures: lays the nodes out in a rectangle and
// paints them with their legend.
class MachinePainter {
 public:
  struct Input {
    const view::RunModel* model = nullptr;
    const view::MachineState* state = nullptr;
    Selection selection;
    const std::vector<std::uint32_t>* matches = nullptr;
    double time = 0;
  };
  // Lays the groups out in `area` (in the painter's coordinates, before any zoom).
  void layout(const view::RunModel& model, QRectF area);
  void paint(QPainter& p, const Input& in, const QRectF& visible) const;
  void paint_legend(QPainter& p, const Input& in, QRectF area) const;
  // The node under a point, in layout coordinates.
  std::uint32_t node_at(QPointF point) const;
  QRectF cell(std::uint32_t node) const { return cells_[node]; }
  double cell_size() const { return cell_; }
  static constexpr double kLegendHeight = 54;

 private:
  void paint_cell(QPainter& p, const Input& in, std::uint32_t node) const;
  std::vector<QRectF> cells_;
  struct Label {
    QRectF rect;
    QString text;
  };
  std::vector<Label> labels_;
  double cell_ = 10;
};

}  // namespace pmixflow::gui
