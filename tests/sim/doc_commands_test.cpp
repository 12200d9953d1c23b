// Every shell command the README and docs/ show is run here, as a reader would type it, in the
// order the page gives, one shell per page (a page's `cd` and `export` hold for its later
// blocks). A command must succeed; an output block right after a command block must be what
// those commands print, line for line (`…` stands for text the page leaves out).
//
// The page controls this with HTML comments, invisible once rendered, just above a block:
//   <!-- doc-test: skip: REASON -->   this command block is not run; REASON says why and where
//                                      else it is tested (a window, a Slurm cluster, an hour)
//   <!-- doc-test: file NAME -->      this block is a file the page's commands use (written first)
//   <!-- doc-test: output -->         this block, though after some prose, is the output of the
//                                      command block before it
// The page runs in a scratch copy of the repository's layout: its top-level entries linked, `build`
// the build under test, `../shared` the shared data when it is there, $HOME a scratch home,
// `build/apps` on $PATH. The page's placeholders for "where you cloned it" are replaced:
// /path/to/pmixflow by that copy, /tmp/pf by a scratch directory.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"
#include "quoted_line.hpp"

namespace pmixflow::test::doc_commands_tests {
namespace {

namespace fs = std::filesystem;

struct Block {
  std::size_t line = 0;  // of the opening fence, 1-based
  std::string text;
  std::string skip;                 // why it is not run, when it is not
  std::vector<std::string> output;  // the lines the page says it prints
  std::vector<std::size_t> output_lines;
};

struct FileBlock {
  std::string name, text;
};

struct Page {
  std::vector<Block> commands;
  std::vector<FileBlock> files;
};

struct Fence {
  std::size_t line = 0;
  std::string lang, text, marker;
  std::vector<std::size_t> lines;
  bool right_after_previous = false;  // nothing but blank lines since the previous fence closed
};

std::vector<Fence> fences_of(const fs::path& path) {
  std::vector<Fence> out;
  std::ifstream in(path);
  std::string line, marker;
  bool inside = false, prose_since = true;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.rfind("```", 0) == 0) {
      if (inside) {
        inside = false;
        prose_since = false;
        continue;
      }
      inside = true;
      out.push_back(Fence{n, line.substr(3), "", {}, {}, !prose_since && marker.empty()});
      out.back().marker = marker;
      marker.clear();
      continue;
    }
    if (inside) {
      out.back().text += line + "\n";
      out.back().lines.push_back(n);
    } else if (line.rfind("<!-- doc-test:", 0) == 0) {
      marker = line.substr(14, line.find("-->") - 14);
      marker.erase(0, marker.find_first_not_of(' '));
      marker.erase(marker.find_last_not_of(' ') + 1);
    } else if (line.find_first_not_of(" \t") != std::string::npos) {
      prose_since = true;
    }
  }
  return out;
}

Page read_page(const fs::path& path) {
  Page page;
  for (const Fence& f : fences_of(path)) {
    if (f.lang == "sh") {
      Block b{f.line, f.text, "", {}, {}};
      if (f.marker.rfind("skip:", 0) == 0) b.skip = f.marker.substr(5);
      page.commands.push_back(std::move(b));
    } else if (f.marker.rfind("file ", 0) == 0) {
      page.files.push_back(FileBlock{f.marker.substr(5), f.text});
    } else if (!page.commands.empty() && (f.right_after_previous || f.marker == "output")) {
      std::istringstream lines(f.text);
      std::size_t i = 0;
      for (std::string l; std::getline(lines, l); ++i)
        if (!l.empty() && l != "\xe2\x80\xa6") {
          page.commands.back().output.push_back(l);
          page.commands.back().output_lines.push_back(f.lines[i]);
        }
    }
  }
  return page;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The scratch copy a page runs in: the repository's top-level entries linked, `build` the build
// under test (the one PMIXFLOW_BIN is in), `../shared` the shared data.
struct Sandbox {
  fs::path root, repo, home, pf;
  explicit Sandbox(const std::string& name) : root(scratch_dir(name)) {
    repo = root / "repo";
    home = root / "home";
    pf = root / "pf";
    fs::create_directories(repo);
    fs::create_directories(home);
    for (const auto& entry : fs::directory_iterator(PMIXFLOW_SOURCE_DIR)) {
      const std::string n = entry.path().filename().string();
      if (n.rfind("build", 0) != 0 && n != ".git") fs::create_symlink(entry.path(), repo / n);
    }
    fs::create_directory_symlink(fs::path(PMIXFLOW_BIN).parent_path().parent_path(), repo / "build");
    if (fs::exists(PMIXFLOW_SHARED_DIR))
      fs::create_directory_symlink(fs::canonical(PMIXFLOW_SHARED_DIR), root / "shared");
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
};

// One shell script for the page: each block between markers, a command's failure reported with
// the command. A comparison's "the runs differ" (diff, outcomes: 1) is an answer, not a failure.
std::string script_of(const Page& page, const Sandbox& box) {
  std::string s = "cd " + quote(box.repo.string()) + "\nexport HOME=" + quote(box.home.string()) +
                  " PATH=" + quote((box.repo / "build/apps").string()) + ":$PATH\n" +
                  "report() { s=$?; case \"$BASH_COMMAND\" in *'pmixflow diff'*|*'pmixflow outcomes'*) "
                  "[ $s = 1 ] && return;; esac; printf '\\n@@doc-fail %s: %s\\n' \"$s\" \"$BASH_COMMAND\"; }\n"
                  "trap report ERR\n";
  for (const FileBlock& f : page.files)
    s += "cat > " + quote(f.name) + " <<'PMIXFLOW_DOC_FILE'\n" + f.text + "PMIXFLOW_DOC_FILE\n";
  for (std::size_t i = 0; i < page.commands.size(); ++i) {
    if (!page.commands[i].skip.empty()) continue;
    std::string text = replaced(page.commands[i].text, "/path/to/pmixflow", box.repo.string());
    text = replaced(text, "/tmp/pf", box.pf.string());
    s += "printf '\\n@@doc-block " + std::to_string(i) + "\\n'\n" + text + "printf '\\n@@doc-end\\n'\n";
  }
  return s;
}

struct BlockRun {
  std::vector<std::string> lines;
  std::vector<std::string> failures;
};

std::map<std::size_t, BlockRun> split_output(const std::string& out) {
  std::map<std::size_t, BlockRun> runs;
  BlockRun* current = nullptr;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("@@doc-block ", 0) == 0) {
      current = &runs[std::stoul(line.substr(12))];
    } else if (line == "@@doc-end") {
      current = nullptr;
    } else if (current && line.rfind("@@doc-fail ", 0) == 0) {
      current->failures.push_back(line.substr(11));
    } else if (current) {
      current->lines.push_back(line);
    }
  }
  return runs;
}

void check_page(const std::string& relative) {
  const fs::path path = fs::path(PMIXFLOW_SOURCE_DIR) / relative;
  const Page page = read_page(path);
  if (page.commands.empty()) return;  // a page of prose and tables: nothing to run
  const std::string text = slurp(path);
  if (text.find("../shared/") != std::string::npos && !fs::exists(PMIXFLOW_SHARED_DIR))
    GTEST_SKIP() << relative << " uses ../shared/data, which is not beside this clone";
  Sandbox box("doc");
  const fs::path script = box.root / "page.sh";
  std::ofstream(script) << script_of(page, box);
  const std::string out_file = (box.root / "out").string();
  const int raw =
      std::system(("bash " + quote(script.string()) + " > " + quote(out_file) + " 2>&1 </dev/null").c_str());
  const std::string out = slurp(out_file);
  EXPECT_TRUE(WIFEXITED(raw)) << relative << ": the page's shell was killed";
  const auto runs = split_output(out);
  for (std::size_t i = 0; i < page.commands.size(); ++i) {
    const Block& b = page.commands[i];
    if (!b.skip.empty()) {
      std::cout << "[  NOTE    ] " << relative << ":" << b.line << " not run:" << b.skip << "\n";
      continue;
    }
    const auto run = runs.find(i);
    ASSERT_NE(run, runs.end()) << relative << ":" << b.line << ": the block never ran; the page's output:\n" << out;
    std::string said;
    for (const auto& l : run->second.lines) said += "    " + l + "\n";
    for (const auto& f : run->second.failures)
      ADD_FAILURE() << relative << ":" << b.line << ": a command failed (status " << f << ")\n  it printed:\n" << said;
    for (std::size_t q = 0; q < b.output.size(); ++q) {
      const auto& lines = run->second.lines;
      const bool found =
          std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return matches_quote(b.output[q], l); });
      EXPECT_TRUE(found) << relative << ":" << b.output_lines[q] << " quotes a line the commands of line " << b.line
                         << " do not print:\n  " << b.output[q] << "\n  they printed:\n"
                         << said;
    }
  }
}

// Every page a reader is pointed at: the README, docs/, the examples' READMEs.
std::vector<std::string> pages() {
  std::vector<std::string> out{"README.md", "examples/policies/README.md", "examples/python/README.md",
                               "tests/scenarios/README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(PMIXFLOW_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md") out.push_back("docs/" + e.path().filename().string());
  std::sort(out.begin() + 4, out.end());
  return out;
}

class DocCommands : public ::testing::TestWithParam<std::string> {};

TEST_P(DocCommands, EveryCommandThePageShowsRunsAndPrintsWhatItQuotes) { check_page(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Pages, DocCommands, ::testing::ValuesIn(pages()), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace pmixflow::test::doc_commands_tests
