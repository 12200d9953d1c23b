// The flow pane: the messages between the parties as a sequence diagram that follows the
// current time, the list of requests with what each carried and got back, the whole path of
// the selected request, and teaching mode, which walks one request (or session) hop by hop
// with a caption for each step.
#pragma once

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

#include "pane.hpp"
#include "sequence_diagram.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;
class QTreeWidget;

namespace pmixflow::gui {

class DiagramView;
class TeachingPanel;

// Text the pane's sources share (defined in flow_content.cpp).
namespace flow_text {
QString q(const std::string& s);
QString duration(double seconds);  // "26 µs", "11.3 ms", "44.07 s"
}  // namespace flow_text

class FlowPane : public Pane {
  Q_OBJECT
 public:
  explicit FlowPane(QWidget* parent = nullptr);
  ~FlowPane() override;

  void set_model(const view::RunModel* model) override;
  void set_time(double t) override;
  void set_selection(const Selection& s) override;
  void paint_picture(QPainter& painter, QSize size) override;
  QString pane_name() const override { return QStringLiteral("flow"); }

  // The selected request's diagram, or the one on screen, as an SVG file; an empty `size` picks
  // one that fits the diagram. False when the file could not be written.
  bool export_svg(const QString& path, QSize size = {});
  // Teaching mode, as the toggle button sets it.
  void set_teaching(bool on);
  bool teaching() const { return teaching_; }
  // Walks teaching mode to step `index` (clamped) and asks the window to go to its time.
  void go_to_step(std::size_t index);
  std::size_t step() const { return step_; }
  std::size_t step_count() const { return steps_.size(); }
  // How many messages the animated diagram shows, the last ones sent at or before T (40).
  void set_window(std::size_t messages);

 private:
  void build_ui();
  QWidget* build_side();
  QWidget* build_main();
  void refresh_list();
  void refresh_details();
  void refresh_diagram();
  void refresh_teaching();
  void reset();
  void pick_request(std::uint32_t request);
  void choose_steps();
  void follow_time_in_steps();
  void apply_filter(const QString& text);
  void ask_export();

  // What the diagram shows: the last messages before T, one request's whole path, or the
  // teaching walk; `picture` adds what a picture needs (the caption box).
  DiagramContent current_content(bool picture = false) const;
  DiagramContent window_content() const;
  DiagramContent request_content(std::uint32_t request, bool picture) const;
  DiagramContent teaching_content(bool picture) const;
  void add_notes(DiagramContent& c, std::uint32_t request) const;
  DiagramContent picture_content() const;
  std::uint32_t last_answered(double t) const;
  std::uint32_t session_request() const;
  QString request_title(std::uint32_t request) const;
  QString request_subtitle(std::uint32_t request) const;
  QString subject_name() const;
  void mark_session_messages();

  const view::RunModel* model_ = nullptr;
  std::string model_path_;
  double t_ = 0;
  Selection selection_;
  std::size_t window_ = 40;
  std::vector<std::uint32_t> by_send_;  // message indices by send time
  std::vector<bool> session_message_;   // the messages of the selected session
  bool teaching_ = false;
  std::uint32_t teach_request_ = view::kNone, teach_session_ = view::kNone;  // what the steps walk
  std::vector<std::uint32_t> steps_;                                         // event indices
  std::size_t step_ = 0;
  std::size_t detail_events_ = 0;  // how many events the request in the details had

  QLineEdit* filter_ = nullptr;
  QTreeWidget* requests_ = nullptr;
  QTreeWidget* details_ = nullptr;
  QLabel* showing_ = nullptr;
  QPushButton* teach_button_ = nullptr;
  QPushButton* all_button_ = nullptr;
  QPushButton* export_button_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  DiagramView* view_ = nullptr;
  TeachingPanel* panel_ = nullptr;
};

}  // namespace pmixflow::gui
