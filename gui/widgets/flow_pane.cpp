#include "flow_pane.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTimer>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

#include "pmixflow/view/explain.hpp"
#include "pmixflow/vocab/vocab.hpp"
#include "teaching_panel.hpp"

namespace pmixflow::gui {

namespace flow_ui {

constexpr double kMinRowH = 20;  // below this the screen diagram scrolls rather than squeezes
constexpr int kRequestRole = Qt::UserRole + 1;

QString status_text(const view::RequestRecord& r) {
  if (r.status) return flow_text::q(status_name(*r.status));
  return r.call == view::kNone ? QStringLiteral("—") : QStringLiteral("pending");
}

QColor status_color(const view::RequestRecord& r) {
  if (!r.status) return QColor(0x78, 0x90, 0x9c);
  return *r.status == Status::Success ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28);
}

QString short_value(const std::string& v) {
  const QString s = flow_text::q(v);
  return s.size() > 28 ? s.left(26) + QStringLiteral("…") : s;
}

QString attribute_list(const std::string& info) {
  QStringList parts;
  for (const auto& a : view::attributes(info))
    parts << flow_text::q(a.name) + QStringLiteral(" = ") + short_value(a.value);
  return parts.join(QStringLiteral(", "));
}

QTreeWidgetItem* group(QTreeWidget* tree, const QString& title) {
  auto* item = new QTreeWidgetItem(tree, {title});
  QFont f = item->font(0);
  f.setBold(true);
  item->setFont(0, f);
  item->setFirstColumnSpanned(true);
  return item;
}

QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& name, const QString& value, const QString& tip = {}) {
  auto* item = new QTreeWidgetItem(parent, {name, value});
  item->setToolTip(0, tip.isEmpty() ? name : tip);
  item->setToolTip(1, tip.isEmpty() ? value : value + QStringLiteral("\n") + tip);
  return item;
}

void attribute_rows(QTreeWidgetItem* parent, const std::string& info) {
  const auto list = view::attributes(info);
  if (list.empty()) row(parent, QObject::tr("(no attributes)"), {});
  for (const auto& a : list)
    row(parent, flow_text::q(a.name), flow_text::q(a.value), QObject::tr("wire key: %1").arg(flow_text::q(a.key)));
}

}  // namespace flow_ui

// The diagram on screen: paints the pane's picture at its own size, and turns a click on an
// arrow into the pick of that message's request.
class DiagramView : public QWidget {
 public:
  explicit DiagramView(QWidget* parent) : QWidget(parent) { setAttribute(Qt::WA_OpaquePaintEvent); }
  void show_content(const view::RunModel* model, DiagramContent content) {
    model_ = model;
    diagram_.set(model, std::move(content));
    fit();
    update();
  }
  SequenceDiagram& diagram() { return diagram_; }
  std::function<void(std::uint32_t message)> on_pick;

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    diagram_.paint(p, rect());
    diagram_.paint_pinned_headers(p, visibleRegion().boundingRect().top());
  }
  void resizeEvent(QResizeEvent*) override { fit(); }
  void mousePressEvent(QMouseEvent* e) override {
    const auto m = diagram_.message_at(e->position());
    if (e->button() == Qt::LeftButton && m && on_pick) on_pick(*m);
  }
  bool event(QEvent* e) override {
    if (e->type() != QEvent::ToolTip || !model_) return QWidget::event(e);
    const auto* help = static_cast<QHelpEvent*>(e);
    const auto m = diagram_.message_at(help->pos());
    if (!m) {
      QToolTip::hideText();
      return true;
    }
    QToolTip::showText(help->globalPos(), tooltip(model_->messages()[*m]), this);
    return true;
  }

 private:
  void fit() { setMinimumHeight(static_cast<int>(std::ceil(diagram_.preferred_height(width(), flow_ui::kMinRowH)))); }
  QString tooltip(const view::Message& m) const {
    const auto& parties = model_->parties();
    const auto name = [&](std::uint32_t p) {
      return p < parties.size() ? flow_text::q(parties[p].name) : QStringLiteral("?");
    };
    QString text =
        QStringLiteral("<b>%1</b><br>%2 → %3<br>sent at %4 s").arg(flow_text::q(m.kind), name(m.from), name(m.to));
    text = text.arg(m.sent_at, 0, 'f', 6);
    if (m.received_at)
      text += tr(", received %1 later").arg(flow_text::duration(*m.received_at - m.sent_at));
    else
      text += tr(", never received");
    if (m.request < model_->requests().size())
      text += tr("<br>request %1 (click to show its path)").arg(flow_text::q(model_->requests()[m.request].corr));
    return text;
  }

  const view::RunModel* model_ = nullptr;
  SequenceDiagram diagram_;
};

FlowPane::FlowPane(QWidget* parent) : Pane(parent) {
  build_ui();
  reset();
}

FlowPane::~FlowPane() = default;

void FlowPane::build_ui() {
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(build_side());
  split->addWidget(build_main());
  split->setStretchFactor(1, 1);
  split->setSizes({470, 930});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
}

QWidget* FlowPane::build_side() {
  auto* side = new QSplitter(Qt::Vertical);
  auto* top = new QWidget(side);
  filter_ = new QLineEdit(top);
  filter_->setPlaceholderText(tr("Filter requests (corr, what, via, status)"));
  filter_->setClearButtonEnabled(true);
  requests_ = new QTreeWidget(top);
  requests_->setObjectName(QStringLiteral("flowRequests"));
  requests_->setHeaderLabels({tr("corr"), tr("what"), tr("via"), tr("status")});
  requests_->setRootIsDecorated(false);
  requests_->setUniformRowHeights(true);
  requests_->setAlternatingRowColors(true);
  requests_->setSelectionMode(QAbstractItemView::SingleSelection);
  requests_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* column = new QVBoxLayout(top);
  column->setContentsMargins(4, 4, 4, 0);
  column->addWidget(filter_);
  column->addWidget(requests_);
  details_ = new QTreeWidget(side);
  details_->setObjectName(QStringLiteral("flowDetails"));
  details_->setHeaderLabels({tr("PMIx attribute"), tr("value")});
  details_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  details_->setWordWrap(true);
  side->addWidget(top);
  side->addWidget(details_);
  side->setSizes({400, 300});
  connect(filter_, &QLineEdit::textChanged, this, &FlowPane::apply_filter);
  connect(requests_, &QTreeWidget::itemSelectionChanged, this, [this] {
    const auto items = requests_->selectedItems();
    if (items.isEmpty()) return;
    pick_request(items.front()->data(0, flow_ui::kRequestRole).toUInt());
  });
  return side;
}

QWidget* FlowPane::build_main() {
  auto* main = new QWidget;
  teach_button_ = new QPushButton(tr("Teaching mode"), main);
  teach_button_->setCheckable(true);
  teach_button_->setToolTip(tr("Walk the selected request (or session) hop by hop, with what each step does and why"));
  all_button_ = new QPushButton(tr("All messages"), main);
  all_button_->setToolTip(tr("Back to the last messages sent before the current time"));
  export_button_ = new QPushButton(tr("Export SVG…"), main);
  showing_ = new QLabel(main);
  showing_->setStyleSheet(QStringLiteral("color: #607d8b;"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(teach_button_);
  bar->addWidget(all_button_);
  bar->addWidget(showing_, 1);
  bar->addWidget(export_button_);

  scroll_ = new QScrollArea(main);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setBackgroundRole(QPalette::Base);
  view_ = new DiagramView(scroll_);
  view_->setObjectName(QStringLiteral("flowDiagram"));
  scroll_->setWidget(view_);
  // The pinned lane headers move with the scrolling: no partial repaints.
  connect(scroll_->verticalScrollBar(), &QScrollBar::valueChanged, view_, qOverload<>(&QWidget::update));
  panel_ = new TeachingPanel(main);
  panel_->hide();

  auto* column = new QVBoxLayout(main);
  column->setContentsMargins(4, 4, 4, 4);
  column->addLayout(bar);
  column->addWidget(scroll_, 1);
  column->addWidget(panel_);

  connect(teach_button_, &QPushButton::toggled, this, &FlowPane::set_teaching);
  connect(all_button_, &QPushButton::clicked, this, [this] { pick_request(view::kNone); });
  connect(export_button_, &QPushButton::clicked, this, &FlowPane::ask_export);
  connect(panel_, &TeachingPanel::previous, this, [this] {
    if (step_ > 0) go_to_step(step_ - 1);
  });
  connect(panel_, &TeachingPanel::next, this, [this] { go_to_step(step_ + 1); });
  view_->on_pick = [this](std::uint32_t m) {
    if (model_ && model_->messages()[m].request != view::kNone) pick_request(model_->messages()[m].request);
  };
  return main;
}

void FlowPane::reset() {
  selection_ = {};
  steps_.clear();
  step_ = 0;
  teach_request_ = teach_session_ = view::kNone;
  by_send_.clear();
  session_message_.clear();
  requests_->clear();
}

void FlowPane::set_model(const view::RunModel* model) {
  const bool same = model && model == model_ && model->log_path() == model_path_ &&
                    model->requests().size() >= static_cast<std::size_t>(requests_->topLevelItemCount());
  if (!same) reset();
  model_ = model;
  model_path_ = model ? model->log_path() : std::string();
  if (model_) {
    by_send_.resize(model_->messages().size());
    for (std::uint32_t i = 0; i < by_send_.size(); ++i) by_send_[i] = i;
    const auto& messages = model_->messages();
    std::stable_sort(by_send_.begin(), by_send_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return messages[a].sent_at < messages[b].sent_at; });
  }
  mark_session_messages();
  refresh_list();
  // A followed log grows every moment: the details are rebuilt (and their scrolling lost) only
  // when the request shown has changed.
  const auto shown = selection_.request != view::kNone ? selection_.request : session_request();
  const auto shown_events = model_ && shown < model_->requests().size() ? model_->requests()[shown].events.size() : 0;
  if (!same || shown_events != detail_events_) refresh_details();
  if (teaching_ && model_) {
    if (!same || (teach_request_ == view::kNone && teach_session_ == view::kNone))
      choose_steps();
    else
      steps_ = teach_session_ != view::kNone ? view::session_steps(*model_, teach_session_)
                                             : view::request_steps(*model_, teach_request_);
    step_ = std::min(step_, steps_.empty() ? 0 : steps_.size() - 1);
  }
  refresh_teaching();
  refresh_diagram();
}

void FlowPane::set_time(double t) {
  t_ = t;
  if (teaching_) {
    const auto before = step_;
    follow_time_in_steps();
    if (step_ != before) refresh_teaching();
  }
  refresh_diagram();
}

void FlowPane::set_selection(const Selection& s) {
  if (s == selection_) return;
  selection_ = s;
  if (model_ && selection_.request >= model_->requests().size()) selection_.request = view::kNone;
  if (model_ && selection_.session >= model_->sessions().size()) selection_.session = view::kNone;
  mark_session_messages();
  refresh_list();
  refresh_details();
  if (teaching_ && model_) {
    choose_steps();
    follow_time_in_steps();
    refresh_teaching();
  }
  refresh_diagram();
}

void FlowPane::pick_request(std::uint32_t request) {
  selection_ = Selection{.request = request};
  mark_session_messages();
  refresh_list();
  refresh_details();
  if (teaching_ && model_) {
    choose_steps();
    go_to_step(0);
  } else {
    refresh_diagram();
  }
  emit selected(selection_);
}

void FlowPane::set_window(std::size_t messages) {
  window_ = std::max<std::size_t>(messages, 1);
  refresh_diagram();
}

void FlowPane::set_teaching(bool on) {
  teaching_ = on;
  {
    const QSignalBlocker block(teach_button_);
    teach_button_->setChecked(on);
  }
  panel_->setVisible(on);
  if (on && model_) {
    choose_steps();
    if (!steps_.empty()) return go_to_step(0);
  }
  refresh_teaching();
  refresh_diagram();
}

void FlowPane::choose_steps() {
  teach_request_ = teach_session_ = view::kNone;
  steps_.clear();
  step_ = 0;
  if (!model_) return;
  if (selection_.request != view::kNone)
    teach_request_ = selection_.request;
  else if (selection_.session != view::kNone)
    teach_session_ = selection_.session;
  else
    teach_request_ = last_answered(t_);
  if (teach_request_ == view::kNone && teach_session_ == view::kNone) {
    // Nothing answered yet: the first request that was called at all.
    const auto& rs = model_->requests();
    const auto it = std::find_if(rs.begin(), rs.end(), [](const auto& r) { return r.call != view::kNone; });
    if (it != rs.end()) teach_request_ = static_cast<std::uint32_t>(it - rs.begin());
  }
  steps_ = teach_session_ != view::kNone ? view::session_steps(*model_, teach_session_)
                                         : view::request_steps(*model_, teach_request_);
}

void FlowPane::follow_time_in_steps() {
  if (steps_.empty() || !model_) return;
  const auto events = model_->events();
  // Time that comes back from our own seek() stays on the step that asked for it, even when
  // later steps happened at the same moment.
  if (events[steps_[step_]].t == t_) return;
  std::size_t at = 0;
  for (std::size_t i = 0; i < steps_.size(); ++i)
    if (events[steps_[i]].t <= t_) at = i;
  step_ = at;
}

void FlowPane::go_to_step(std::size_t index) {
  if (steps_.empty() || !model_) return;
  step_ = std::min(index, steps_.size() - 1);
  t_ = model_->events()[steps_[step_]].t;
  refresh_teaching();
  refresh_diagram();
  emit seek(t_);
}

void FlowPane::refresh_list() {
  if (!model_) return requests_->clear();
  const QSignalBlocker block(requests_);
  const auto& rs = model_->requests();
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    auto* item = i < static_cast<std::size_t>(requests_->topLevelItemCount())
                     ? requests_->topLevelItem(static_cast<int>(i))
                     : new QTreeWidgetItem(requests_);
    const QStringList texts{flow_text::q(r.corr), r.what.empty() ? QStringLiteral("—") : flow_text::q(r.what),
                            flow_text::q(r.via), flow_ui::status_text(r)};
    for (int c = 0; c < texts.size(); ++c)
      if (item->text(c) != texts[c]) item->setText(c, texts[c]);
    item->setData(0, flow_ui::kRequestRole, static_cast<unsigned>(i));
    item->setForeground(3, flow_ui::status_color(r));
    if (r.call != view::kNone && item->toolTip(1).isEmpty()) item->setToolTip(1, flow_ui::attribute_list(r.info));
    item->setSelected(i == selection_.request);
  }
  if (selection_.request < rs.size())
    requests_->scrollToItem(requests_->topLevelItem(static_cast<int>(selection_.request)));
  apply_filter(filter_->text());
}

void FlowPane::apply_filter(const QString& text) {
  for (int i = 0; i < requests_->topLevelItemCount(); ++i) {
    auto* item = requests_->topLevelItem(i);
    bool match = text.isEmpty();
    for (int c = 0; c < 4 && !match; ++c) match = item->text(c).contains(text, Qt::CaseInsensitive);
    item->setHidden(!match);
  }
}

void FlowPane::refresh_details() {
  details_->clear();
  detail_events_ = 0;
  const std::uint32_t r = selection_.request != view::kNone ? selection_.request : session_request();
  if (!model_ || r >= model_->requests().size()) {
    auto* hint = new QTreeWidgetItem(details_, {tr("Pick a request, or click an arrow, to see what it carried")});
    hint->setFirstColumnSpanned(true);
    hint->setForeground(0, QColor(0x78, 0x90, 0x9c));
    return;
  }
  const auto& rq = model_->requests()[r];
  detail_events_ = rq.events.size();
  const auto events = model_->events();
  auto* head = flow_ui::group(details_, tr("Request %1").arg(flow_text::q(rq.corr)));
  if (rq.call != view::kNone) {
    flow_ui::row(head, tr("what"), flow_text::q(rq.what));
    flow_ui::row(head, tr("via"), flow_text::q(rq.via));
    if (rq.requestor < model_->parties().size())
      flow_ui::row(head, tr("requestor"), flow_text::q(model_->parties()[rq.requestor].name));
    flow_ui::row(head, tr("called at"), QStringLiteral("%1 s").arg(events[rq.call].t, 0, 'f', 6));
    flow_ui::attribute_rows(flow_ui::group(details_, tr("Attributes it carried")), rq.info);
  } else {
    flow_ui::row(head, tr("what"), tr("the RM's own exchange (no requestor called)"));
  }
  auto* answer = flow_ui::group(details_, tr("Answer"));
  auto* status = flow_ui::row(answer, tr("status"), flow_ui::status_text(rq));
  status->setForeground(1, flow_ui::status_color(rq));
  if (rq.answered != view::kNone && rq.call != view::kNone)
    flow_ui::row(answer, tr("answered after"), flow_text::duration(events[rq.answered].t - events[rq.call].t));
  if (rq.answered != view::kNone) flow_ui::attribute_rows(answer, rq.answer);
  auto* path = flow_ui::group(details_, tr("Path"));
  flow_ui::row(path, tr("messages"), QString::number(rq.messages.size()));
  flow_ui::row(path, tr("events"), QString::number(rq.events.size()));
  details_->expandAll();
}

void FlowPane::refresh_teaching() {
  if (!teaching_) return;
  if (!model_ || steps_.empty()) return panel_->show_nothing(tr("Teaching mode: no request to walk through yet"));
  panel_->show_step(step_, steps_.size(), view::caption(*model_, steps_[step_]), subject_name());
}

void FlowPane::refresh_diagram() {
  all_button_->setEnabled(model_ && selection_.request != view::kNone);
  export_button_->setEnabled(model_ != nullptr);
  if (!model_) {
    showing_->clear();
    DiagramContent none;
    none.empty_text = tr("No run loaded");
    return view_->show_content(nullptr, std::move(none));
  }
  if (teaching_)
    showing_->setText(tr("Page Down / Page Up: next and previous step"));
  else if (selection_.request != view::kNone)
    showing_->setText(tr("Its whole path; what comes after T is pale"));
  else
    showing_->setText(tr("Click an arrow or a request to see its whole path"));
  view_->show_content(model_, current_content());
  const bool window = !teaching_ && selection_.request == view::kNone;
  const double focus = teaching_ && !steps_.empty() ? model_->events()[steps_[step_]].t : -1;
  // After the scroll area has taken the diagram's new height: the newest messages (or the
  // current step) stay in sight.
  QTimer::singleShot(0, this, [this, window, focus] {
    if (window) return scroll_->verticalScrollBar()->setValue(scroll_->verticalScrollBar()->maximum());
    if (focus < 0) return;
    view_->diagram().prepare(view_->rect());
    scroll_->ensureVisible(0, static_cast<int>(view_->diagram().y_at(focus)), 0, 120);
  });
}

void FlowPane::mark_session_messages() {
  session_message_.clear();
  if (!model_ || selection_.session >= model_->sessions().size()) return;
  const auto id = model_->sessions()[selection_.session].id;
  const auto events = model_->events();
  std::vector<bool> related(model_->requests().size(), false);
  for (const auto& e : events)
    if (e.session == id && e.request != view::kNone) related[e.request] = true;
  if (const auto r = session_request(); r != view::kNone) related[r] = true;
  const auto names = [&](std::uint32_t e) { return e < events.size() && events[e].session == id; };
  const auto& messages = model_->messages();
  session_message_.resize(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto& m = messages[i];
    session_message_[i] = (m.request < related.size() && related[m.request]) || names(m.send) || names(m.recv);
  }
}

std::uint32_t FlowPane::session_request() const {
  if (!model_ || selection_.session >= model_->sessions().size()) return view::kNone;
  return model_->find_request(model_->sessions()[selection_.session].corr).value_or(view::kNone);
}

std::uint32_t FlowPane::last_answered(double t) const {
  std::uint32_t best = view::kNone, best_event = 0;
  const auto& rs = model_->requests();
  for (std::uint32_t i = 0; i < rs.size(); ++i) {
    const auto a = rs[i].answered;
    if (a == view::kNone || model_->events()[a].t > t || (best != view::kNone && a < best_event)) continue;
    best = i;
    best_event = a;
  }
  return best;
}

void FlowPane::paint_picture(QPainter& painter, QSize size) {
  SequenceDiagram picture;
  DiagramContent content = model_ ? picture_content() : DiagramContent{};
  if (!model_) content.empty_text = tr("No run loaded");
  picture.set(model_, std::move(content));
  picture.paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
}

bool FlowPane::export_svg(const QString& path, QSize size) {
  if (!model_) return false;
  SequenceDiagram picture;
  DiagramContent content = current_content(true);
  const QString title = content.title;
  picture.set(model_, std::move(content));
  if (size.isEmpty())
    size = QSize(1400, std::max(900, static_cast<int>(std::ceil(picture.preferred_height(1400, 30)))));
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setResolution(96);  // CSS pixels: the file opens at the size it was drawn for
  svg.setTitle(title);
  svg.setDescription(tr("pmixflow-view, flow pane: %1").arg(flow_text::q(model_->log_path())));
  QPainter painter;
  if (!painter.begin(&svg)) return false;
  picture.paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
  painter.end();
  return QFileInfo(path).size() > 0;
}

void FlowPane::ask_export() {
  QString name = QStringLiteral("flow");
  if (model_ && selection_.request < model_->requests().size())
    name +=
        QStringLiteral("-") +
        flow_text::q(model_->requests()[selection_.request].corr).replace(QRegularExpression("[^A-Za-z0-9_.-]"), "-");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export the flow diagram"), name + QStringLiteral(".svg"),
                                                    tr("SVG (*.svg)"));
  if (path.isEmpty()) return;
  if (!export_svg(path)) QMessageBox::warning(this, tr("Export SVG"), tr("Could not write %1.").arg(path));
}

}  // namespace pmixflow::gui
