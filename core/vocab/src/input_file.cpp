#include "pmixflow/vocab/input_file.hpp"

#include <filesystem>

#include "pmixflow/vocab/errors.hpp"

namespace pmixflow {

void refuse_directory(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, "", "is a directory, not " + std::string(what));
}

}  // namespace pmixflow
