#include "timeline.hpp"

#include <QHBoxLayout>
#include <QStyle>

#include <algorithm>
#include <cmath>

#include "pmixflow/log/catalogue.hpp"

namespace pmixflow::gui {

namespace {
constexpr int kSliderSteps = 100000;

QString clock_text(double t) {
  if (std::abs(t) < 120) return QStringLiteral("%1 s").arg(t, 0, 'f', 6);
  const auto s = static_cast<long long>(t);
  return QStringLiteral("%1 d %2:%3:%4")
      .arg(s / 86400)
      .arg((s / 3600) % 24, 2, 10, QChar('0'))
      .arg((s / 60) % 60, 2, 10, QChar('0'))
      .arg(s % 60, 2, 10, QChar('0'));
}
}  // namespace

Timeline::Timeline(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  // The style's own icons: a font may not have the media symbols.
  auto button = [&](QStyle::StandardPixmap icon, const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    if (icon != QStyle::SP_CustomBase) b->setIcon(style()->standardIcon(icon));
    b->setText(text);
    b->setToolTip(tip);
    row->addWidget(b);
    return b;
  };
  auto* prev = button(QStyle::SP_MediaSkipBackward, tr("Previous"), tr("Previous event (←)"));
  play_ = button(QStyle::SP_MediaPlay, tr("Play"), tr("Play / pause (space)"));
  play_->setCheckable(true);
  auto* next = button(QStyle::SP_MediaSkipForward, tr("Next"), tr("Next event (→)"));
  speed_ = new QComboBox(this);
  for (double s : {0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0})
    speed_->addItem(QStringLiteral("×%1").arg(s), s);
  speed_->setCurrentIndex(3);
  speed_->setToolTip(tr("Seconds of the run per second of playing"));
  row->addWidget(speed_);
  kind_ = new QComboBox(this);
  for (const auto& k : log::all_kinds())
    kind_->addItem(QString::fromUtf8(k.name.data(), static_cast<int>(k.name.size())));
  kind_->setToolTip(tr("The kind of event to jump to"));
  row->addWidget(kind_);
  auto* jump = button(QStyle::SP_CustomBase, tr("Next of kind"), tr("Jump to the next event of the chosen kind (N)"));
  scrubber_ = new QSlider(Qt::Horizontal, this);
  scrubber_->setRange(0, kSliderSteps);
  row->addWidget(scrubber_, 1);
  label_ = new QLabel(this);
  label_->setMinimumWidth(170);
  row->addWidget(label_);

  connect(prev, &QToolButton::clicked, this, [this] { step(-1); });
  connect(next, &QToolButton::clicked, this, [this] { step(+1); });
  connect(play_, &QToolButton::toggled, this, &Timeline::play);
  connect(jump, &QToolButton::clicked, this, &Timeline::next_of_kind);
  connect(scrubber_, &QSlider::valueChanged, this, [this](int v) {
    if (moving_slider_ || !model_) return;
    const double span = model_->end_time() - model_->start_time();
    set_time(model_->start_time() + span * v / kSliderSteps);
  });
  connect(&timer_, &QTimer::timeout, this, &Timeline::tick);
  timer_.setInterval(16);
}

void Timeline::set_model(const view::RunModel* model) {
  model_ = model;
  show_time();
}

int Timeline::slider_position(double t) const {
  if (!model_) return 0;
  const double span = model_->end_time() - model_->start_time();
  if (span <= 0) return kSliderSteps;
  return static_cast<int>(std::lround((t - model_->start_time()) / span * kSliderSteps));
}

void Timeline::set_time(double t) {
  if (model_) t = std::clamp(t, model_->start_time(), model_->end_time());
  if (t == time_) return show_time();
  time_ = t;
  show_time();
  emit time_changed(time_);
}

void Timeline::show_time() {
  moving_slider_ = true;
  scrubber_->setValue(slider_position(time_));
  moving_slider_ = false;
  QString text = clock_text(time_);
  if (model_) text += QStringLiteral("  ·  event %1/%2").arg(model_->events_until(time_)).arg(model_->events().size());
  label_->setText(text);
}

void Timeline::play(bool on) {
  if (on && model_ && time_ >= model_->end_time()) set_time(model_->start_time());
  play_->setChecked(on);
  play_->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  if (on) {
    clock_.start();
    timer_.start();
  } else {
    timer_.stop();
  }
}

void Timeline::tick() {
  if (!model_) return;
  const double elapsed = static_cast<double>(clock_.restart()) / 1000.0;
  const double next = time_ + elapsed * speed_->currentData().toDouble();
  // A followed log grows: keep playing at its end rather than stop there.
  if (next >= model_->end_time() && !model_->following()) {
    set_time(model_->end_time());
    play(false);
    return;
  }
  set_time(next);
}

void Timeline::step(int direction) {
  if (!model_ || model_->events().empty()) return;
  const auto events = model_->events();
  const auto done = model_->events_until(time_);  // events at or before now
  if (direction > 0) {
    if (done < events.size()) set_time(std::max(events[done].t, time_));
    return;
  }
  // Back to the time of the last event strictly before now.
  std::size_t i = done;
  while (i > 0 && events[i - 1].t >= time_) --i;
  if (i > 0) set_time(events[i - 1].t);
}

void Timeline::next_of_kind() {
  if (!model_) return;
  const auto kind = log::find_kind(kind_->currentText().toStdString());
  const auto events = model_->events();
  for (auto i = model_->events_until(time_); i < events.size(); ++i)
    if (kind && events[i].kind == *kind) return set_time(events[i].t);
}

}  // namespace pmixflow::gui
