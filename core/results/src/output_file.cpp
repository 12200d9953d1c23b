#include "pmixflow/results/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

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

}  // namespace pmixflow
