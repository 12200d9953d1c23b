// The flow pane's sequence diagram as a plain painter: one lane per party, time downwards, one
// arrow per message. It has no widget of its own so that the screen, a PNG and an SVG file get
// the very same picture from the same code.
//
// Time runs down by rows, not linearly: each distinct moment of the shown messages gets a row,
// because a hop takes microseconds while a request may wait in the queue for minutes. Long
// waits are marked between the rows instead.
#pragma once

#include <QColor>
#include <QLineF>
#include <QPainter>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmixflow/view/explain.hpp"
#include "pmixflow/view/run_model.hpp"

namespace pmixflow::gui {

enum class Emphasis : std::uint8_t {
  Normal,
  Strong,  // the selected session's messages, teaching mode's current hop
  Dim,     // context around a highlighted selection
  Ghost,   // what has not happened yet (a path shown beyond T)
};

struct DiagramContent {
  struct Arrow {
    std::uint32_t message = view::kNone;
    Emphasis emphasis = Emphasis::Normal;
  };
  // An event that is not a message, shown as a dot on its party's lane (teaching mode's steps).
  struct Marker {
    std::uint32_t event = view::kNone;
    bool current = false;  // ringed and labelled with its kind
  };
  std::vector<Arrow> arrows;
  std::vector<Marker> markers;
  std::uint32_t current_message = view::kNone;  // drawn over a halo
  double now = std::numeric_limits<double>::infinity();
  // A message still in flight at `now` is drawn only as far as it has come (the animation).
  bool cut_at_now = false;
  QString title, subtitle;
  // Lines under the subtitle, a bold lead then its text: {"Request", "PMIX_ALLOC_NUM_NODES = 2"}.
  std::vector<std::pair<QString, QString>> notes;
  std::optional<view::Caption> caption;  // painted in a box under the diagram
  QString caption_step;                  // "Step 3 of 21"
  QString empty_text = QStringLiteral("No messages to show");
};

class SequenceDiagram {
 public:
  // Lays out lanes and rows; the geometry itself waits for paint(), which knows the size.
  void set(const view::RunModel* model, DiagramContent content);
  const DiagramContent& content() const { return content_; }
  bool empty() const { return lanes_.empty(); }

  // Places lanes and rows in `area`; paint() does it too. y_at() and message_at() answer for the
  // last area prepared.
  void prepare(const QRectF& area);
  void paint(QPainter& p, const QRectF& area);
  double y_at(double t) const { return y_of(t); }
  // The lane headers again at `top`, when the diagram is scrolled past them.
  void paint_pinned_headers(QPainter& p, double top) const;
  // The message whose arrow (or label) is under `pos`, as last painted.
  std::optional<std::uint32_t> message_at(QPointF pos) const;
  // The height the diagram needs at `width` for rows of `row_height` pixels.
  double preferred_height(double width, double row_height) const;

  static QColor kind_color(std::string_view kind);
  static bool is_answer(std::string_view kind);

 private:
  struct Lane {
    std::uint32_t party = view::kNone;
    double x = 0;
  };
  struct Geometry {
    QRectF title, header, body, legend, caption;
    double row_h = 0;
  };
  struct Hit {
    QLineF line;
    QRectF label;
    std::uint32_t message = view::kNone;
  };

  void add_lane(std::uint32_t party, const std::vector<std::uint32_t>& rank);
  double y_of(double t) const;
  double lane_x(std::uint32_t party) const;
  Geometry layout(const QRectF& area) const;
  double title_height() const;
  double caption_height(double width) const;
  double legend_height(double width) const;

  void paint_title(QPainter& p, const QRectF& r) const;
  void paint_headers(QPainter& p, const Geometry& g) const;
  void paint_time_gutter(QPainter& p, const Geometry& g) const;
  void paint_now(QPainter& p, const Geometry& g) const;
  void paint_arrow(QPainter& p, const DiagramContent::Arrow& a, std::vector<QRectF>& labels);
  void paint_label(QPainter& p, const QLineF& line, const QString& text, const QColor& color, bool bold,
                   std::vector<QRectF>& labels, Hit& hit) const;
  void paint_markers(QPainter& p, std::vector<QRectF>& labels) const;
  void paint_legend(QPainter& p, const QRectF& r) const;
  void paint_caption(QPainter& p, const QRectF& r) const;

  const view::RunModel* model_ = nullptr;
  const view::RunModel* ranked_model_ = nullptr;
  std::vector<std::uint32_t> rank_;  // each party's place among the lanes
  DiagramContent content_;
  std::vector<Lane> lanes_;
  std::vector<double> rows_;        // the distinct moments, in order
  std::vector<std::string> kinds_;  // the message kinds shown, for the legend
  Geometry geometry_;
  std::vector<Hit> hits_;
  struct Fan {
    std::uint32_t from;
    double sent_at;
    std::string kind;
    Emphasis emphasis;
    bool operator==(const Fan&) const = default;
  };
  std::vector<Fan> fans_;  // the sends labelled so far in this painting
};

}  // namespace pmixflow::gui
