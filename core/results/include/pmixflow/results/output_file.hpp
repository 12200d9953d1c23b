// An output file that only appears complete: it is written under a temporary name and
// renamed into place by commit(). A run that stops half-way leaves no file that looks whole.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace pmixflow {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();  // without commit(), the partial file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text);
  void commit();
  const std::string& path() const { return path_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  std::string partial_;
  std::FILE* file_ = nullptr;
  std::uint64_t bytes_ = 0;
};

}  // namespace pmixflow
