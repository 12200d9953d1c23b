// What pmixflow says about itself: --version, and the completion script and the whole help the
// build makes its bash completion and man page from (so both follow the option tables).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "pmixflow_run.hpp"

namespace pmixflow::test::self_description_cli_tests {
namespace {

TEST(SelfDescription, VersionNamesTheReleaseAndTheLibrariesItWasBuiltWith) {
  const auto r = run_pmixflow({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("pmixflow ") + PMIXFLOW_VERSION, 0), 0u) << r.out;
  EXPECT_NE(r.out.find("built with SimGrid "), std::string::npos) << r.out;
}

// The emulator's own programs, beside pmixflow (libexec/pmixflow/ once installed): a party's or
// a job's process in `ps` can be asked which build it is.
TEST(SelfDescription, TheEmulatorsPartyAndJobProgramsSayTheirVersionToo) {
  for (const std::string program : {"pmixflow-party", "pmixflow-job"}) {
    const auto path = std::filesystem::path(PMIXFLOW_BIN).parent_path() / program;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << ": built without the emulator";
    const auto r = run_program(path.string(), {"--version"});
    EXPECT_EQ(r.exit_code, 0) << program << ": " << r.err;
    EXPECT_EQ(r.out.rfind(program + " " + PMIXFLOW_VERSION, 0), 0u) << r.out;
    EXPECT_NE(r.out.find("OpenPMIx "), std::string::npos) << r.out;
  }
}

TEST(SelfDescription, TheBashCompletionKnowsEverySubCommandItsOptionsAndTheirClosedValues) {
  const auto r = run_pmixflow({"--completion", "bash"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("complete -o bashdefault -o default -F _pmixflow pmixflow"), std::string::npos);
  EXPECT_NE(r.out.find("sim|emul|"), std::string::npos) << "the sub-commands, as a case pattern";
  EXPECT_NE(r.out.find("--compare-recorded"), std::string::npos);
  EXPECT_NE(r.out.find("'sim --events') COMPREPLY=($(compgen -W 'all state none'"), std::string::npos);
  EXPECT_NE(r.out.find("compgen -W 'fcfs easy conservative priority-preempt'"), std::string::npos);
  EXPECT_EQ(r.out.find("--help-all"), std::string::npos) << "hidden options are not offered";
}

TEST(SelfDescription, OnlyBashCompletionIsMadeAndAnotherShellIsRefused) {
  const auto r = run_pmixflow({"--completion", "zsh"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("only bash"), std::string::npos) << r.err;
}

TEST(SelfDescription, TheWholeHelpHasEverySubCommandsOptionsUnderItsUsage) {
  const auto r = run_pmixflow({"--help-all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\npmixflow sim [OPTIONS]:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\npmixflow diff [OPTIONS] RUN_A RUN_B:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--queue-priority"), std::string::npos);
  EXPECT_EQ(r.out.find("Exit status:"), r.out.rfind("Exit status:")) << "the exit statuses are said once";
}

}  // namespace
}  // namespace pmixflow::test::self_description_cli_tests
