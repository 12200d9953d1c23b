// Every pane's picture to a file: PNG or SVG by the file's extension, on a white background,
// at a chosen size. The main window and --screenshot use it for every pane; each pane's
// "Export…" button asks for a file name first.
#pragma once

#include <QSize>
#include <QString>

class QAbstractButton;

namespace pmixflow::gui {

class Pane;

// False, with a message in `error` (when given), when the extension is neither .png nor .svg,
// the size is empty, or the file cannot be written.
bool export_picture(Pane& pane, const QString& path, QSize size, QString* error);

// Asks for a file (the extension chooses the format) and writes the pane's picture at the
// pane's current size; a failure is shown in a message box.
void export_with_dialog(Pane& pane);

// A small "Export…" button, child of `pane`, that calls export_with_dialog; the pane places it.
QAbstractButton* make_export_button(Pane& pane);

}  // namespace pmixflow::gui
