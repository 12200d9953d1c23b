#include "pmixflow/emul/run_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pmixflow::emul {
namespace {

std::string temp_base() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

std::string make_private(const std::string& pattern) {
  std::string p = pattern;
  if (!::mkdtemp(p.data())) throw std::system_error(errno, std::generic_category(), "creating " + pattern);
  ::chmod(p.c_str(), 0700);  // mkdtemp's mode is 0700 already; say so whatever the umask did
  return p;
}

}  // namespace

RunDir::RunDir() : path_(make_private(temp_base() + "/pmixflow-emul-XXXXXX")) {}

RunDir::~RunDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  for (const auto& d : foreign_) std::filesystem::remove_all(d, ec);
}

std::string RunDir::party_dir(const std::string& name) const {
  std::string n = name;
  std::replace(n.begin(), n.end(), ':', '-');
  const std::string dir = path_ + "/" + n;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::system_error(errno, std::generic_category(), "creating " + dir);
  return dir;
}

std::string RunDir::foreign_dir(const std::string& name, uid_t uid, gid_t gid) {
  std::string n = name;
  std::replace(n.begin(), n.end(), ':', '-');
  const std::string dir = make_private(path_ + "-" + n + "-XXXXXX");
  if (::chown(dir.c_str(), uid, gid) != 0) {
    const int e = errno;
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    throw std::system_error(e, std::generic_category(), "giving " + dir + " to uid " + std::to_string(uid));
  }
  foreign_.push_back(dir);
  return dir;
}

}  // namespace pmixflow::emul
