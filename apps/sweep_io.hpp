// What a sweep's pieces share to write files and start processes: a file written whole or not
// at all, a word a shell reads back as it is, posix_spawn's file actions released on every path.
#pragma once

#include <spawn.h>

#include <filesystem>
#include <string>

namespace pmixflow::cli {

// Writes `text` under a temporary name and renames it: a reader (another sweep, a Slurm task on
// another node, a pandas script) finds the whole file or the one before it, never half of it.
// Throws std::runtime_error when it cannot write.
void write_whole(const std::filesystem::path& file, const std::string& text);

// `s` as a shell reads it back: unchanged when it is plain, else in single quotes.
std::string shell_word(const std::string& s);

class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace pmixflow::cli
