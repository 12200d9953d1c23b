// Time: play and pause at a chosen speed, step to the next or previous event, jump to the next
// event of a kind, and a scrubber over the whole run. It owns the current time and says when it
// changes; the panes only follow.
#pragma once

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QWidget>

#include "pmixflow/view/run_model.hpp"

namespace pmixflow::gui {

class Timeline : public QWidget {
  Q_OBJECT
 public:
  explicit Timeline(QWidget* parent = nullptr);
  // The model may have grown (a followed log): the range follows it.
  void set_model(const view::RunModel* model);
  double time() const { return time_; }
  bool playing() const { return timer_.isActive(); }

 public slots:
  void set_time(double t);
  void play(bool on);
  void step(int direction);  // to the next (+1) or previous (-1) event's time
  void next_of_kind();

 signals:
  void time_changed(double t);

 private:
  void tick();
  void show_time();
  int slider_position(double t) const;

  const view::RunModel* model_ = nullptr;
  double time_ = 0;
  QToolButton* play_ = nullptr;
  QComboBox* speed_ = nullptr;
  QComboBox* kind_ = nullptr;
  QSlider* scrubber_ = nullptr;
  QLabel* label_ = nullptr;
  QTimer timer_;
  QElapsedTimer clock_;
  bool moving_slider_ = false;
};

}  // namespace pmixflow::gui
