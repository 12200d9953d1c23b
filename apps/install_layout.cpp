#include "install_layout.hpp"

#include <system_error>

namespace pmixflow::cli {
namespace {

std::filesystem::path own_directory() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : self.parent_path();
}

std::optional<std::filesystem::path> first_file(const std::vector<std::filesystem::path>& places) {
  std::error_code ec;
  for (const auto& p : places)
    if (std::filesystem::is_regular_file(p, ec)) return p.lexically_normal();
  return std::nullopt;
}

}  // namespace

std::vector<std::filesystem::path> program_places(const std::string& program) {
  const auto dir = own_directory();
  return {dir / program, (dir / PMIXFLOW_LIBEXEC_FROM_BIN / program).lexically_normal()};
}

std::optional<std::filesystem::path> find_program_file(const std::string& program) {
  return first_file(program_places(program));
}

std::optional<std::filesystem::path> find_data_file(const std::string& relative) {
  return first_file(
      {own_directory() / PMIXFLOW_DATA_FROM_BIN / relative, std::filesystem::path(PMIXFLOW_SOURCE_DIR) / relative});
}

}  // namespace pmixflow::cli
