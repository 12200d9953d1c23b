#include "machine_pane.hpp"

#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>

namespace pmixflow::gui {

// The zoomable, pannable view of the machine.
class MachineCanvas : public QWidget {
 public:
  explicit MachineCanvas(MachinePane* pane) : QWidget(pane), pane_(pane) {
    setMouseTracking(true);
    setMinimumSize(200, 150);
  }
  void set_model(const view::RunModel* m) {
    model_ = m;
    laid_out_ = QSize();
    refresh();
  }
  void set_time(double t) {
    time_ = t;
    refresh();
  }
  void refresh() {
    if (model_) state_ = model_->machine_at(time_);
    update();
  }
  Selection selection;
  std::vector<std::uint32_t> matches;
  void centre_on(std::uint32_t node) {
    ensure_layout(size());
    const auto c = painter_.cell(node).center();
    offset_ = QPointF(width() / 2.0, height() / 2.0) - c * zoom_;
    update();
  }
  void paint_picture(QPainter& p, QSize size) {
    MachinePainter painter;
    const QRectF area(8, 8, size.width() - 16, size.height() - 16 - MachinePainter::kLegendHeight);
    if (!model_) return;
    painter.layout(*model_, area);
    const auto in = input();
    painter.paint(p, in, QRectF(QPointF(0, 0), size));
    painter.paint_legend(p, in, QRectF(8, area.bottom() + 6, area.width(), MachinePainter::kLegendHeight));
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (!model_) {
      p.drawText(rect(), Qt::AlignCenter, tr("No run open"));
      return;
    }
    ensure_layout(size());
    p.save();
    p.translate(offset_);
    p.scale(zoom_, zoom_);
    const QRectF visible((QPointF(0, 0) - offset_) / zoom_, QSizeF(width(), height()) / zoom_);
    painter_.paint(p, input(), visible);
    p.restore();
    const QRectF legend(8, height() - MachinePainter::kLegendHeight, width() - 16, MachinePainter::kLegendHeight);
    p.fillRect(legend.adjusted(-8, 0, 8, 0), QColor(255, 255, 255, 235));
    painter_.paint_legend(p, input(), legend);
  }
  void resizeEvent(QResizeEvent*) override { laid_out_ = QSize(); }
  void wheelEvent(QWheelEvent* e) override {
    const double factor = std::pow(1.0015, e->angleDelta().y());
    const QPointF at = e->position();
    const double zoom = std::clamp(zoom_ * factor, 1.0, 200.0);
    offset_ = at - (at - offset_) * (zoom / zoom_);
    zoom_ = zoom;
    if (zoom_ == 1.0) offset_ = QPointF();
    update();
  }
  void mousePressEvent(QMouseEvent* e) override {
    drag_from_ = e->position();
    dragged_ = false;
  }
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;

 private:
  MachinePainter::Input input() const { return MachinePainter::Input{model_, &state_, selection, &matches, time_}; }
  void ensure_layout(QSize s) {
    if (laid_out_ == s || !model_) return;
    painter_.layout(*model_, QRectF(8, 8, s.width() - 16, s.height() - 16 - MachinePainter::kLegendHeight));
    laid_out_ = s;
  }
  std::uint32_t node_under(QPointF widget_point) const { return painter_.node_at((widget_point - offset_) / zoom_); }
  QString describe(std::uint32_t node) const;

  MachinePane* pane_;
  const view::RunModel* model_ = nullptr;
  view::MachineState state_;
  MachinePainter painter_;
  QSize laid_out_;
  double time_ = 0;
  double zoom_ = 1;
  QPointF offset_;
  std::optional<QPointF> drag_from_;
  bool dragged_ = false;
  friend class MachinePane;
};

QString MachineCanvas::describe(std::uint32_t node) const {
  const auto& rec = model_->nodes()[node];
  const auto& st = state_.nodes()[node];
  const auto look = view::look_name(view::look_of(st));
  QString text = QStringLiteral("<b>%1</b><br>%2 slots<br>%3")
                     .arg(QString::fromStdString(rec.name))
                     .arg(rec.slot_count)
                     .arg(QString::fromUtf8(look.data(), static_cast<int>(look.size())));
  if (st.sessions > 0) {
    text += QStringLiteral("<br>session %1").arg(st.session);
    if (const auto s = model_->find_session(st.session))
      text += QStringLiteral(" (%1, owner %2)")
                  .arg(QString::fromStdString(model_->sessions()[*s].alloc),
                       QString::fromStdString(model_->sessions()[*s].owner));
    if (st.sessions > 1) text += QStringLiteral(" and %1 more").arg(st.sessions - 1);
  }
  if (st.job != view::kNone)
    text += QStringLiteral("<br>job %1").arg(QString::fromStdString(model_->jobs()[st.job].nspace));
  return text;
}

void MachineCanvas::mouseMoveEvent(QMouseEvent* e) {
  if (drag_from_ && (e->buttons() & Qt::LeftButton)) {
    const QPointF d = e->position() - *drag_from_;
    if (dragged_ || d.manhattanLength() > 4) {
      dragged_ = true;
      offset_ += d;
      drag_from_ = e->position();
      update();
    }
    return;
  }
  if (!model_) return;
  const auto node = node_under(e->position());
  if (node == view::kNone || node >= state_.nodes().size()) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(e->globalPosition().toPoint(), describe(node), this);
}

void MachineCanvas::mouseReleaseEvent(QMouseEvent* e) {
  const bool click = !dragged_;
  drag_from_.reset();
  if (!click || !model_) return;
  const auto node = node_under(e->position());
  Selection s;
  s.node = node;
  if (node != view::kNone && node < state_.nodes().size() && state_.nodes()[node].sessions > 0)
    s.session = model_->find_session(state_.nodes()[node].session).value_or(view::kNone);
  emit pane_->selected(s);
}

MachinePane::MachinePane(QWidget* parent) : Pane(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Find a node, a session (s12) or a job (job-3.1)…"));
  search_->setClearButtonEnabled(true);
  canvas_ = new MachineCanvas(this);
  layout->addWidget(search_);
  layout->addWidget(canvas_, 1);
  connect(search_, &QLineEdit::textChanged, this, &MachinePane::search);
}

void MachinePane::set_model(const view::RunModel* model) {
  canvas_->set_model(model);
  search(search_->text());
}
void MachinePane::set_time(double t) { canvas_->set_time(t); }
void MachinePane::set_selection(const Selection& s) {
  canvas_->selection = s;
  canvas_->update();
}
void MachinePane::paint_picture(QPainter& painter, QSize size) { canvas_->paint_picture(painter, size); }
const std::vector<std::uint32_t>& MachinePane::matches() const { return canvas_->matches; }

void MachinePane::search(const QString& text) {
  auto& found = canvas_->matches;
  found.clear();
  const auto* m = canvas_->model_;
  const QString needle = text.trimmed();
  if (m && !needle.isEmpty()) {
    const std::string want = needle.toStdString();
    bool is_number = false;
    const uint session = needle.startsWith('s') ? needle.mid(1).toUInt(&is_number) : 0;
    for (std::uint32_t i = 0; i < m->nodes().size(); ++i)
      if (m->nodes()[i].name.find(want) != std::string::npos) found.push_back(i);
    if (is_number)
      if (const auto s = m->find_session(session))
        found.insert(found.end(), m->sessions()[*s].nodes.begin(), m->sessions()[*s].nodes.end());
    for (const auto& j : m->jobs())
      if (j.nspace == want) found.insert(found.end(), j.nodes.begin(), j.nodes.end());
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    if (!found.empty() && canvas_->zoom_ > 1) canvas_->centre_on(found.front());
  }
  canvas_->update();
}

}  // namespace pmixflow::gui
