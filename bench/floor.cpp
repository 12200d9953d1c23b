#include "floor.hpp"

#include <fstream>
#include <string>

namespace pmixflow::bench {

Floor pingpong_floor(std::uint64_t messages, const std::filesystem::path& scratch) {
  const auto out = scratch / "floor.txt";
  Floor f;
  f.process = run_process({PINGPONG_BIN, std::to_string(messages)}, out.string(), "");
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  if (const auto at = line.find("wall_s="); at != std::string::npos) f.loop_s = std::stod(line.substr(at + 7));
  std::filesystem::remove(out);
  return f;
}

}  // namespace pmixflow::bench
