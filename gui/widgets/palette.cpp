#include "palette.hpp"

#include <array>

namespace pmixflow::gui {

QColor look_colour(view::NodeLook look) {
  // Greys for what is not in use, greens and blues for the DVM, warm colours for what needs a
  // look: chosen to stay apart for the common forms of colour blindness.
  static const std::array<QColor, view::kLookCount> colours{
      QColor(0xdd, 0xdd, 0xdd),  // outside the DVM
      QColor(0xf2, 0xd4, 0x8f),  // allocated, no daemon
      QColor(0xa6, 0xce, 0xe3),  // daemon starting
      QColor(0xb2, 0xdf, 0x8a),  // in the DVM, free
      QColor(0xca, 0xb2, 0xd6),  // withheld for a session
      QColor(0x1f, 0x78, 0xb4),  // running a job
      QColor(0xff, 0x7f, 0x00),  // job suspended
      QColor(0xe3, 0x1a, 0x1c),  // failed
  };
  return colours[static_cast<std::size_t>(look)];
}

QColor session_colour(std::uint32_t id) {
  // Golden-angle hues: neighbouring ids get far-apart colours.
  const int hue = static_cast<int>((id * 137.508) + 20) % 360;
  return QColor::fromHsv(hue, 170, 200);
}

QColor phase_colour(view::SessionPhase phase) {
  switch (phase) {
    case view::SessionPhase::Instantiating: return QColor(0xa6, 0xce, 0xe3);
    case view::SessionPhase::Active: return QColor(0x33, 0xa0, 0x2c);
    case view::SessionPhase::Paused: return QColor(0xfd, 0xbf, 0x6f);
    case view::SessionPhase::Preempted: return QColor(0xff, 0x7f, 0x00);
    case view::SessionPhase::Terminating: return QColor(0xfb, 0x9a, 0x99);
    case view::SessionPhase::Reclaimed: return QColor(0xbb, 0xbb, 0xbb);
  }
  return Qt::gray;
}

}  // namespace pmixflow::gui
