#include "version.hpp"

#include <vector>

namespace pmixflow::version {

std::string version_line(std::string_view program) {
  const BuildInfo info = build_info();
  std::string line = std::string(program) + " " + std::string(info.version);
  if (!info.commit.empty()) line += " (git " + std::string(info.commit) + ", " + std::string(info.commit_date) + ")";
  return line;
}

std::string version_text(std::string_view program, std::string_view extra) {
  const BuildInfo info = build_info();
  std::vector<std::string> parts;
  if (!info.simgrid.empty()) parts.push_back("SimGrid " + std::string(info.simgrid));
  if (!info.pmix.empty()) parts.push_back("OpenPMIx " + std::string(info.pmix));
  if (!info.hwloc.empty()) parts.push_back("hwloc " + std::string(info.hwloc));
  if (!extra.empty()) parts.emplace_back(extra);
  std::string text = version_line(program);
  if (parts.empty()) return text;
  text += "\nbuilt with ";
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : ", ") + parts[i];
  return text;
}

}  // namespace pmixflow::version
