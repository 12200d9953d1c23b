// Teaching mode's panel under the flow diagram: the caption of the current step (what happens,
// why, and where docs/flow.md explains it) and the buttons that walk the steps.
#pragma once

#include <QFrame>

#include "pmixflow/view/explain.hpp"

class QLabel;
class QPushButton;

namespace pmixflow::gui {

class TeachingPanel : public QFrame {
  Q_OBJECT
 public:
  explicit TeachingPanel(QWidget* parent = nullptr);
  // Step `index` (from 0) of `count`; what it shows of the step is `caption`.
  void show_step(std::size_t index, std::size_t count, const view::Caption& caption, const QString& subject);
  void show_nothing(const QString& why);

 signals:
  void previous();
  void next();

 private:
  QLabel* step_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* text_ = nullptr;
  QLabel* section_ = nullptr;
  QPushButton* previous_ = nullptr;
  QPushButton* next_ = nullptr;
};

}  // namespace pmixflow::gui
