#include "pmixflow/results/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "pmixflow/log/event.hpp"
#include "pmixflow/vocab/json_text.hpp"

namespace pmixflow {

OutputFile::OutputFile(std::string path) : path_(std::move(path)), partial_(path_ + ".partial") {
  file_ = std::fopen(partial_.c_str(), "wb");
  if (!file_) throw std::runtime_error(path_ + ": cannot write: " + std::strerror(errno));
  static constexpr std::size_t kBuffer = 1 << 20;  // the event log is written line by line
  std::setvbuf(file_, nullptr, _IOFBF, kBuffer);
}

OutputFile::~OutputFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(partial_.c_str());
  }
}

void OutputFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw std::runtime_error(path_ + ": write failed: " + std::strerror(errno));
  bytes_ += text.size();
}

void OutputFile::commit() {
  if (!file_) return;
  const bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || std::rename(partial_.c_str(), path_.c_str()) != 0) {
    std::remove(partial_.c_str());
    throw std::runtime_error(path_ + ": could not be completed: " + std::strerror(errno));
  }
}

EventLogWriter::EventLogWriter(std::string path, std::string_view environment, std::uint64_t seed,
                               std::string_view inputs_json)
    : file_(std::move(path)) {
  std::string header = "{\"format\":";
  json_quote_into(header, kEventLogFormat);
  header += ",\"version\":" + std::to_string(kEventLogVersion) + ",\"env\":";
  json_quote_into(header, environment);
  header += ",\"seed\":" + std::to_string(seed) + ",\"inputs\":";
  header += inputs_json;
  header += "}\n";
  file_.write(header);
}

void EventLogWriter::write(double t, std::string_view who, const Event& e) {
  line_.clear();
  line_ += "{\"t\":";
  json_number_into(line_, t);
  line_ += ",\"ev\":";
  json_quote_into(line_, e.kind());
  line_ += ",\"who\":";
  json_quote_into(line_, who);
  line_ += e.fields();
  line_ += "}\n";
  file_.write(line_);
  ++events_;
}

}  // namespace pmixflow
