// Where pmixflow finds the programs and data it ships, relative to its own binary so that an
// installed prefix works wherever it is (a .deb in /usr, a prefix in $HOME) and without the
// source tree: first beside the binary (the build tree), then the install layout's places
// (PREFIX/libexec/pmixflow, PREFIX/share/pmixflow), then, for data, the source tree it was
// built from.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pmixflow::cli {

// The places looked at for `program`, in order (for messages naming them).
std::vector<std::filesystem::path> program_places(const std::string& program);
std::optional<std::filesystem::path> find_program_file(const std::string& program);

// `relative` is under the shipped data: "topologies/small-node.xml".
std::optional<std::filesystem::path> find_data_file(const std::string& relative);

}  // namespace pmixflow::cli
