// The emulation's private directory: every server's rendezvous files and sockets live under it,
// readable and searchable by the user running the emulation only (0700), and removed with
// everything in it when the emulation ends, whichever way it ends short of SIGKILL.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace pmixflow::emul {

class RunDir {
 public:
  // Creates $TMPDIR/pmixflow-emul-XXXXXX (mode 0700). Throws std::system_error.
  RunDir();
  ~RunDir();
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;

  const std::string& path() const { return path_; }
  // A private subdirectory (0700) for one party: NAME with ':' turned into '-'.
  std::string party_dir(const std::string& name) const;
  // A directory outside the run directory, owned by `uid` (0700), for a party that runs as
  // another user and so cannot enter the run directory; removed with it.
  std::string foreign_dir(const std::string& name, uid_t uid, gid_t gid);

 private:
  std::string path_;
  std::vector<std::string> foreign_;
};

}  // namespace pmixflow::emul
