// What every pane of the viewer is: a widget that shows one run's model at the current time,
// knows what is selected, and can paint its picture onto any QPainter (the screen, a PNG or an
// SVG file) at a given size.
#pragma once

#include <QPainter>
#include <QSize>
#include <QString>
#include <QWidget>

#include <cstdint>

#include "pmixflow/view/run_model.hpp"

namespace pmixflow::gui {

// What the user has picked, shared by every pane: picking a session highlights its nodes and its
// messages; picking a request shows its path.
struct Selection {
  std::uint32_t session = view::kNone;  // index into RunModel::sessions()
  std::uint32_t request = view::kNone;  // index into RunModel::requests()
  std::uint32_t node = view::kNone;     // index into RunModel::nodes()
  bool operator==(const Selection&) const = default;
};

class Pane : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  // The model may have grown since the last call (a followed log); nullptr: nothing to show.
  virtual void set_model(const view::RunModel* model) = 0;
  virtual void set_time(double t) = 0;
  virtual void set_selection(const Selection& s) = 0;
  // The pane's picture, as it looks now, painted at `size` (exports and --screenshot).
  virtual void paint_picture(QPainter& painter, QSize size) = 0;
  // A short name for files and the --pane option: "machine", "flow", ...
  virtual QString pane_name() const = 0;

 signals:
  // The user picked something in this pane.
  void selected(const pmixflow::gui::Selection& s);
  // The user asked to go to a moment (a click on a time axis).
  void seek(double t);
};

}  // namespace pmixflow::gui
