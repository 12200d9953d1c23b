#include "teaching_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace pmixflow::gui {

TeachingPanel::TeachingPanel(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("teachingPanel"));
  setFrameShape(QFrame::StyledPanel);
  setStyleSheet(
      QStringLiteral("#teachingPanel { background: #fffde7; border: 1px solid #f9a825; border-radius: 6px; }"
                     "#teachingPanel QLabel { background: transparent; }"));
  step_ = new QLabel(this);
  step_->setStyleSheet(QStringLiteral("color: #607d8b;"));
  previous_ = new QPushButton(tr("◀ Previous"), this);
  next_ = new QPushButton(tr("Next ▶"), this);
  // Only while the flow pane has the focus: the other panes keep their own use of the arrows.
  previous_->setShortcut(QKeySequence(Qt::Key_PageUp));
  next_->setShortcut(QKeySequence(Qt::Key_PageDown));
  previous_->setToolTip(tr("The previous step (Page Up)"));
  next_->setToolTip(tr("The next step (Page Down)"));
  connect(previous_, &QPushButton::clicked, this, &TeachingPanel::previous);
  connect(next_, &QPushButton::clicked, this, &TeachingPanel::next);

  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  title_->setFont(bold);
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  section_ = new QLabel(this);
  section_->setStyleSheet(QStringLiteral("color: #37474f; font-style: italic;"));
  section_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* top = new QHBoxLayout;
  top->addWidget(step_, 1);
  top->addWidget(previous_);
  top->addWidget(next_);
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(10, 6, 10, 8);
  column->addLayout(top);
  column->addWidget(title_);
  column->addWidget(text_);
  column->addWidget(section_);
}

void TeachingPanel::show_step(std::size_t index, std::size_t count, const view::Caption& caption,
                              const QString& subject) {
  step_->setText(tr("%1 — step %2 of %3").arg(subject).arg(index + 1).arg(count));
  title_->setText(QString::fromStdString(caption.title));
  text_->setText(QString::fromStdString(caption.text));
  section_->setText(QString::fromStdString(caption.section));
  previous_->setEnabled(index > 0);
  next_->setEnabled(index + 1 < count);
}

void TeachingPanel::show_nothing(const QString& why) {
  step_->setText(why);
  title_->clear();
  text_->clear();
  section_->clear();
  previous_->setEnabled(false);
  next_->setEnabled(false);
}

}  // namespace pmixflow::gui
