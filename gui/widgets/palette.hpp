// The viewer's colours: one per node look (the machine pane and its legend), and one per
// session, stable across runs and screenshots, so that a session keeps its colour everywhere.
#pragma once

#include <QColor>

#include <cstdint>

#include "pmixflow/view/machine.hpp"
#include "pmixflow/view/records.hpp"

namespace pmixflow::gui {

QColor look_colour(view::NodeLook look);
QColor session_colour(std::uint32_t session_id);
QColor phase_colour(view::SessionPhase phase);

}  // namespace pmixflow::gui
