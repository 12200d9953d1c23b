// What the flow pane's diagram shows, in each of its modes: the arrows, their emphasis, the
// title. Kept apart from the widgets so that the screen, the pictures and the SVG export all
// ask the same functions.
#include <algorithm>

#include "flow_pane.hpp"
#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow::gui {

namespace flow_text {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString duration(double s) {
  if (s >= 1) return QStringLiteral("%1 s").arg(s, 0, 'f', s >= 100 ? 0 : 2);
  if (s >= 1e-3) return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 1);
  return QStringLiteral("%1 µs").arg(s * 1e6, 0, 'f', 0);
}

}  // namespace flow_text

DiagramContent FlowPane::current_content(bool picture) const {
  if (teaching_ && !steps_.empty()) return teaching_content(picture);
  if (selection_.request != view::kNone) return request_content(selection_.request, picture);
  return window_content();
}

DiagramContent FlowPane::picture_content() const {
  if (teaching_ && !steps_.empty()) return teaching_content(true);
  std::uint32_t r = selection_.request;
  if (r == view::kNone) r = session_request();
  if (r == view::kNone) r = last_answered(t_);
  return r == view::kNone ? window_content() : request_content(r, true);
}

DiagramContent FlowPane::window_content() const {
  DiagramContent c;
  c.now = t_;
  c.cut_at_now = true;
  const auto& messages = model_->messages();
  const auto end = std::upper_bound(by_send_.begin(), by_send_.end(), t_,
                                    [&](double t, std::uint32_t m) { return t < messages[m].sent_at; });
  const auto shown = std::min<std::size_t>(window_, static_cast<std::size_t>(end - by_send_.begin()));
  const bool session = !session_message_.empty();
  for (auto it = end - static_cast<std::ptrdiff_t>(shown); it != end; ++it) {
    auto emphasis = Emphasis::Normal;
    if (session) emphasis = session_message_[*it] ? Emphasis::Strong : Emphasis::Dim;
    c.arrows.push_back({*it, emphasis});
  }
  c.title = tr("Messages up to %1 s").arg(t_, 0, 'f', 3);
  const auto sent = static_cast<std::size_t>(end - by_send_.begin());
  c.subtitle = shown < sent ? tr("The last %1 of the %2 messages sent by then").arg(shown).arg(sent)
                            : tr("All %1 messages sent by then").arg(sent);
  if (session) c.subtitle += tr("; session %1's in bold").arg(model_->sessions()[selection_.session].id);
  c.empty_text = tr("No message has been sent yet");
  return c;
}

DiagramContent FlowPane::request_content(std::uint32_t request, bool picture) const {
  DiagramContent c;
  c.now = t_;
  const auto& r = model_->requests()[request];
  const auto& messages = model_->messages();
  for (const auto m : r.messages)
    c.arrows.push_back({m, messages[m].sent_at <= t_ ? Emphasis::Normal : Emphasis::Ghost});
  c.title = request_title(request);
  c.subtitle = request_subtitle(request);
  if (picture) add_notes(c, request);
  c.empty_text = tr("%1 sent no message").arg(flow_text::q(r.corr));
  return c;
}

DiagramContent FlowPane::teaching_content(bool picture) const {
  DiagramContent c;
  const auto events = model_->events();
  const auto current = steps_[step_];
  c.now = events[current].t;
  const auto in_steps = [&](std::uint32_t e) {
    return e != view::kNone && std::binary_search(steps_.begin(), steps_.end(), e);
  };
  const auto& messages = model_->messages();
  const auto add = [&](std::uint32_t i) {
    const auto& m = messages[i];
    const auto first = m.send != view::kNone ? m.send : m.recv;
    auto emphasis = first <= current ? Emphasis::Normal : Emphasis::Ghost;
    if (m.send == current || m.recv == current) {
      emphasis = Emphasis::Strong;
      c.current_message = i;
    }
    c.arrows.push_back({i, emphasis});
  };
  if (teach_request_ != view::kNone) {
    for (const auto m : model_->requests()[teach_request_].messages) add(m);
  } else {
    for (std::uint32_t i = 0; i < messages.size(); ++i)
      if (in_steps(messages[i].send) || in_steps(messages[i].recv)) add(i);
  }
  for (const auto e : steps_)
    if (events[e].kind != log::EventKind::Send && events[e].kind != log::EventKind::Recv)
      c.markers.push_back({e, e == current});
  if (teach_request_ != view::kNone) {
    c.title = request_title(teach_request_);
    c.subtitle = request_subtitle(teach_request_);
    if (picture) add_notes(c, teach_request_);
  } else {
    const auto& s = model_->sessions()[teach_session_];
    c.title = tr("Session %1 (%2) of %3, from request %4")
                  .arg(s.id)
                  .arg(flow_text::q(s.alloc), flow_text::q(s.owner), flow_text::q(s.corr));
    c.subtitle = tr("%1 steps: its request's events and every event that names the session").arg(steps_.size());
  }
  if (picture) {
    c.caption = view::caption(*model_, current);
    c.caption_step = tr("Step %1 of %2").arg(step_ + 1).arg(steps_.size());
  }
  return c;
}

QString FlowPane::request_title(std::uint32_t request) const {
  const auto& r = model_->requests()[request];
  if (r.call == view::kNone) return tr("%1 — the RM's own exchange").arg(flow_text::q(r.corr));
  const QString status = r.status ? flow_text::q(status_name(*r.status)) : tr("no answer yet");
  return tr("%1 — %2 via %3 → %4").arg(flow_text::q(r.corr), flow_text::q(r.what), flow_text::q(r.via), status);
}

QString FlowPane::request_subtitle(std::uint32_t request) const {
  const auto& r = model_->requests()[request];
  const auto events = model_->events();
  QStringList parts;
  if (r.requestor < model_->parties().size()) parts << flow_text::q(model_->parties()[r.requestor].name);
  if (r.call != view::kNone) parts << tr("called at %1 s").arg(events[r.call].t, 0, 'f', 3);
  if (r.answered != view::kNone && r.call != view::kNone)
    parts << tr("answered after %1").arg(flow_text::duration(events[r.answered].t - events[r.call].t));
  parts << tr("%n message(s)", nullptr, static_cast<int>(r.messages.size()));
  return parts.join(QStringLiteral("  ·  "));
}

// What a picture says that the screen leaves to the details list: the attributes under their
// PMIx names, both ways.
void FlowPane::add_notes(DiagramContent& c, std::uint32_t request) const {
  const auto& r = model_->requests()[request];
  const auto listed = [](const std::string& info) {
    QStringList out;
    for (const auto& a : view::attributes(info)) {
      QString v = flow_text::q(a.value);
      if (v.size() > 32) v = v.left(30) + QStringLiteral("…");
      out << flow_text::q(a.name) + QStringLiteral(" = ") + v;
    }
    return out;
  };
  const QString dot = QStringLiteral("   ·   ");
  if (r.call != view::kNone) c.notes.push_back({tr("Request"), listed(r.info).join(dot)});
  if (!r.status) return;
  QStringList answer = listed(r.answer);
  answer.prepend(flow_text::q(status_name(*r.status)));
  c.notes.push_back({tr("Answer"), answer.join(dot)});
}

QString FlowPane::subject_name() const {
  if (!model_) return {};
  if (teach_session_ != view::kNone) return tr("Session %1").arg(model_->sessions()[teach_session_].id);
  if (teach_request_ != view::kNone) return flow_text::q(model_->requests()[teach_request_].corr);
  return {};
}

}  // namespace pmixflow::gui
