// Pictures without a screen: `pmixflow-view --screenshot FILE` renders one pane (or the
// overview: the machine, the sessions and the last request's path together) at a time T and
// exits. Under QT_QPA_PLATFORM=offscreen it needs no display, for documentation and CI.
#pragma once

#include <QSize>
#include <QString>

#include <optional>

#include "pmixflow/view/run_model.hpp"

namespace pmixflow::gui {

struct ScreenshotRequest {
  QString file;               // .png or .svg
  std::optional<double> at;   // default: telling_time()
  QString pane = "overview";  // or machine, flow, sessions, gantt, utilisation, compare
  QSize size{1600, 1000};
  std::string request;                   // a request (its corr) to select: the flow shows its path
  std::optional<std::uint32_t> session;  // a session (its id) to select: its nodes are outlined
};

// The moment a picture of the whole run tells most: the last moment with the most sessions
// alive (just before the first of them goes), or the end of a log with no session.
double telling_time(const view::RunModel& model);

// Writes the picture; false with a message when the pane, the request or the session is
// unknown, or the file cannot be written.
bool take_screenshot(const view::RunModel& a, const view::RunModel* b, const ScreenshotRequest& request,
                     QString* error);

// The pane names --pane accepts.
QStringList pane_names(bool comparing);

}  // namespace pmixflow::gui
