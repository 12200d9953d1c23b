#include "export.hpp"

#include <QBuffer>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QToolButton>

#include "pane.hpp"

namespace pmixflow::gui {

namespace {

bool export_failed(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

QByteArray png_bytes(Pane& pane, QSize size, QString* error) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    pane.paint_picture(painter, size);
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QImageWriter writer(&buffer, "png");
  if (!writer.write(image)) {
    export_failed(error, "cannot encode the PNG: " + writer.errorString());
    return {};
  }
  return bytes;
}

QByteArray svg_bytes(Pane& pane, QSize size, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setResolution(96);  // so that its width in mm is `size` pixels at the usual 96 dpi
  svg.setTitle(title);
  svg.setDescription("pmixflow-view: " + pane.pane_name());
  QPainter painter(&svg);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  pane.paint_picture(painter, size);
  painter.end();
  return bytes;
}

}  // namespace

bool export_picture(Pane& pane, const QString& path, QSize size, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png" && suffix != "svg")
    return export_failed(error, QString("%1: unknown picture format '%2' (use .png or .svg)").arg(path, suffix));
  if (size.isEmpty()) return export_failed(error, QString("%1: empty picture size").arg(path));
  // The picture is made in memory and written in one go: a file that cannot be written is
  // reported as such, and never left half-written.
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return export_failed(error, QString("%1: %2").arg(path, file.errorString()));
  const QByteArray bytes =
      suffix == "png" ? png_bytes(pane, size, error) : svg_bytes(pane, size, QFileInfo(path).fileName());
  if (bytes.isEmpty()) {
    file.cancelWriting();
    return suffix == "png" ? false : export_failed(error, QString("%1: the SVG painter wrote nothing").arg(path));
  }
  if (file.write(bytes) != bytes.size() || !file.commit())
    return export_failed(error, QString("%1: %2").arg(path, file.errorString()));
  return true;
}

void export_with_dialog(Pane& pane) {
  const QString path = QFileDialog::getSaveFileName(&pane, "Export picture", pane.pane_name() + ".png",
                                                    "Pictures (*.png *.svg);;PNG image (*.png);;SVG drawing (*.svg)");
  if (path.isEmpty()) return;
  QString error;
  if (!export_picture(pane, path, pane.size(), &error)) QMessageBox::warning(&pane, "Export failed", error);
}

QAbstractButton* make_export_button(Pane& pane) {
  auto* button = new QToolButton(&pane);
  button->setText("Export…");
  button->setToolTip("Save this picture as PNG or SVG (the file's extension chooses)");
  button->setAutoRaise(true);
  QObject::connect(button, &QToolButton::clicked, &pane, [&pane] { export_with_dialog(pane); });
  return button;
}

}  // namespace pmixflow::gui
