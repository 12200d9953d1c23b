#include "pmixflow/vocab/input_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

void refuse_directory(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, not " + std::string(what));
}

void require_regular_file(const std::string& path, std::string_view what) {
  const std::string wanted(what);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ELOOP) throw InputError(path, 0, "", "a loop of symbolic links, not " + wanted);
    throw InputError(path, 0, "", "cannot be read: " + std::string(std::strerror(err)));
  }
  const char* is = S_ISDIR(st.st_mode)                          ? "a directory"
                   : S_ISFIFO(st.st_mode)                       ? "a named pipe (FIFO)"
                   : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                   : S_ISSOCK(st.st_mode)                       ? "a socket"
                   : S_ISREG(st.st_mode)                        ? nullptr
                                                                : "something other than a file";
  // A named pipe is said why: reading one waits for a writer that may never come.
  if (is)
    throw InputError(path, 0, "",
                     "is " + std::string(is) + ", not " + wanted +
                         (S_ISFIFO(st.st_mode) ? " (reading it could wait forever): give a regular file" : ""));
  if (::access(path.c_str(), R_OK) != 0)
    throw InputError(path, 0, "", "cannot be read: " + std::string(std::strerror(errno)));
}

std::string read_whole_file(const std::string& path, std::string_view what) {
  require_regular_file(path, what);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxWholeFileBytes)
    throw InputError(path, 0, "",
                     std::to_string(size) + " bytes: more than the 1 GiB " + std::string(what) + " may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace pmixflow
