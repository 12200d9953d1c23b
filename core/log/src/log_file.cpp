#include "log_file.hpp"

#include <zlib.h>

#include <array>
#include <cerrno>

namespace pmixflow::log {
namespace {

ssize_t gz_read(void* cookie, char* buffer, std::size_t size) {
  const int n =
      gzread(static_cast<gzFile>(cookie), buffer, static_cast<unsigned>(std::min<std::size_t>(size, 1 << 30)));
  if (n < 0) {
    errno = EIO;
    return -1;
  }
  return n;
}

int gz_close(void* cookie) { return gzclose(static_cast<gzFile>(cookie)) == Z_OK ? 0 : EOF; }

bool starts_as_gzip(std::FILE* f) {
  std::array<unsigned char, 2> magic{};
  const bool gzip =
      std::fread(magic.data(), 1, magic.size(), f) == magic.size() && magic[0] == 0x1f && magic[1] == 0x8b;
  std::rewind(f);
  return gzip;
}

}  // namespace

OpenedLog open_log_file(const std::string& path) {
  OpenedLog opened;
  opened.file = std::fopen(path.c_str(), "rb");
  if (!opened.file || !starts_as_gzip(opened.file)) return opened;
  std::fclose(opened.file);
  opened.file = nullptr;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return opened;
  gzbuffer(gz, 256 * 1024);
  opened.file = fopencookie(gz, "rb", cookie_io_functions_t{gz_read, nullptr, nullptr, gz_close});
  if (!opened.file) gzclose(gz);
  opened.compressed = opened.file != nullptr;
  return opened;
}

}  // namespace pmixflow::log
