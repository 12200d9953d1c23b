#include "screenshot.hpp"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <memory>

#include "compare_pane.hpp"
#include "export.hpp"
#include "flow_pane.hpp"
#include "gantt_pane.hpp"
#include "machine_pane.hpp"
#include "sessions_pane.hpp"
#include "utilisation_pane.hpp"

namespace pmixflow::gui {

namespace {

// The machine, the sessions and the flow in one picture, with a title line that names the
// run, the time and, for a log that was cut, where it stops.
class OverviewPane : public Pane {
 public:
  OverviewPane() : machine_(this), sessions_(this), flow_(this) {}
  void set_model(const view::RunModel* m) override {
    model_ = m;
    for (Pane* p : parts()) p->set_model(m);
  }
  void set_time(double t) override {
    time_ = t;
    for (Pane* p : parts()) p->set_time(t);
  }
  void set_selection(const Selection& s) override {
    for (Pane* p : parts()) p->set_selection(s);
  }
  QString pane_name() const override { return QStringLiteral("overview"); }
  void paint_picture(QPainter& p, QSize size) override;

 private:
  std::array<Pane*, 3> parts() { return {&machine_, &sessions_, &flow_}; }
  void paint_part(QPainter& p, Pane& part, QRect area);
  void paint_title(QPainter& p, QRect area);

  const view::RunModel* model_ = nullptr;
  double time_ = 0;
  MachinePane machine_;
  SessionsPane sessions_;
  FlowPane flow_;
};

void OverviewPane::paint_part(QPainter& p, Pane& part, QRect area) {
  p.save();
  p.translate(area.topLeft());
  p.setClipRect(QRect(QPoint(0, 0), area.size()));
  part.paint_picture(p, area.size());
  p.restore();
  p.setPen(QColor(0xcc, 0xcc, 0xcc));
  p.setBrush(Qt::NoBrush);
  p.drawRect(area.adjusted(0, 0, -1, -1));
}

void OverviewPane::paint_title(QPainter& p, QRect area) {
  if (!model_) return;
  const auto& in = model_->header().inputs;
  const auto name = in.contains("name") && in["name"].is_string() ? in["name"].get<std::string>() : std::string("run");
  QFont f = p.font();
  f.setPixelSize(18);
  f.setBold(true);
  p.setFont(f);
  p.setPen(QColor(0x22, 0x22, 0x22));
  p.drawText(area, Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("%1 (%2) at t = %3 s")
                 .arg(QString::fromStdString(name), QString::fromStdString(model_->header().env))
                 .arg(time_, 0, 'f', 6));
  QString state = model_->complete() ? QString() : QStringLiteral("log still being written");
  if (model_->problem()) state = QStringLiteral("log cut at line %1: shown up to there").arg(model_->problem()->line());
  if (state.isEmpty()) return;
  p.setPen(QColor(0xb0, 0x00, 0x20));
  p.drawText(area, Qt::AlignRight | Qt::AlignVCenter, state);
}

void OverviewPane::paint_picture(QPainter& p, QSize size) {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  const int title = 34, gap = 10;
  paint_title(p, QRect(gap, 0, size.width() - 2 * gap, title));
  const int top = title, left_w = size.width() * 11 / 20, upper_h = (size.height() - top) * 9 / 20;
  QFont normal = p.font();
  normal.setPixelSize(13);
  normal.setBold(false);
  p.setFont(normal);
  paint_part(p, machine_, QRect(gap, top, left_w - gap, upper_h));
  paint_part(p, sessions_, QRect(left_w + gap, top, size.width() - left_w - 2 * gap, upper_h));
  paint_part(p, flow_,
             QRect(gap, top + upper_h + gap, size.width() - 2 * gap, size.height() - top - upper_h - 2 * gap));
}

bool fail(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

std::unique_ptr<Pane> make_pane(const QString& name, const view::RunModel* b) {
  if (name == "overview") return std::make_unique<OverviewPane>();
  if (name == "machine") return std::make_unique<MachinePane>();
  if (name == "flow") return std::make_unique<FlowPane>();
  if (name == "sessions") return std::make_unique<SessionsPane>();
  if (name == "gantt") return std::make_unique<GanttPane>();
  if (name == "utilisation") return std::make_unique<UtilisationPane>();
  if (name == "compare" && b) return std::make_unique<ComparePane>(b);
  return nullptr;
}

}  // namespace

QStringList pane_names(bool comparing) {
  QStringList names{"overview", "machine", "flow", "sessions", "gantt", "utilisation"};
  if (comparing) names << "compare";
  return names;
}

double telling_time(const view::RunModel& model) {
  // Sweep the sessions' lives: +1 at an instantiation, -1 at a reclaim.
  std::vector<std::pair<double, int>> changes;
  for (const auto& s : model.sessions()) {
    changes.emplace_back(s.phases.front().first, +1);
    if (s.phases.back().second == view::SessionPhase::Reclaimed) changes.emplace_back(s.phases.back().first, -1);
  }
  std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  int alive = 0, best = 0;
  double when = model.end_time();
  for (std::size_t i = 0; i < changes.size(); ++i) {
    alive += changes[i].second;
    if (i + 1 < changes.size() && changes[i + 1].first == changes[i].first) continue;
    if (alive >= best && alive > 0) {
      best = alive;
      // Just before the next change: everything up to it has happened, none of it undone yet.
      when = i + 1 < changes.size() ? std::nextafter(changes[i + 1].first, changes[i].first) : model.end_time();
    }
  }
  return when;
}

bool take_screenshot(const view::RunModel& a, const view::RunModel* b, const ScreenshotRequest& r, QString* error) {
  auto pane = make_pane(r.pane, b);
  if (!pane)
    return fail(error, QStringLiteral("no pane named \"%1\" (one of: %2)").arg(r.pane, pane_names(b).join(", ")));
  Selection selection;
  if (!r.request.empty()) {
    const auto found = a.find_request(r.request);
    if (!found)
      return fail(error, QStringLiteral("no request \"%1\" in this log").arg(QString::fromStdString(r.request)));
    selection.request = *found;
  }
  if (r.session) {
    const auto found = a.find_session(*r.session);
    if (!found) return fail(error, QStringLiteral("no session %1 in this log").arg(*r.session));
    selection.session = *found;
  }
  pane->resize(r.size);
  pane->set_model(&a);
  pane->set_selection(selection);
  pane->set_time(r.at.value_or(telling_time(a)));
  const bool ok = export_picture(*pane, r.file, r.size, error);
  pane->set_model(nullptr);
  return ok;
}

}  // namespace pmixflow::gui
