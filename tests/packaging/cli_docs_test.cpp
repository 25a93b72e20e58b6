// The generated bash completion and man page against the CLI's own --help (every subcommand, every option), and
// --version against project(VERSION) in CMakeLists.txt.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::run_chorus;
using testing_support::shell_quote;

// The first words of the lines of the sections of `chorus PATH --help` named `section` ("Subcommands:"), or with
// an empty `section` of every option group (CLI11 lists options under "Options:" and under their own group names).
std::vector<std::string> help_section(const std::vector<std::string>& path, const std::string& section) {
  std::vector<std::string> args = path;
  args.push_back("--help");
  const testing_support::CliRun run = run_chorus(args, false);
  EXPECT_EQ(run.status, 0);
  std::istringstream lines(run.out);
  std::vector<std::string> words;
  bool inside = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != ' ') {
      const bool group = !line.empty() && line.back() == ':' && line != "Subcommands:" && line != "Positionals:";
      inside = section.empty() ? group : line == section;
      continue;
    }
    if (inside)
      words.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return words;
}

std::vector<std::string> help_subcommands(const std::vector<std::string>& path) {
  return help_section(path, "Subcommands:");
}

// "-h,--help" -> {"-h", "--help"}; every option a user can type.
std::set<std::string> help_options(const std::vector<std::string>& path) {
  std::set<std::string> names;
  for (const std::string& spec : help_section(path, "")) {
    std::istringstream parts(spec);
    for (std::string name; std::getline(parts, name, ',');)
      names.insert(name);
  }
  return names;
}

// Every command path below `path`, depth first, found through --help alone.
void collect_paths(const std::vector<std::string>& path, std::vector<std::vector<std::string>>& out) {
  out.push_back(path);
  for (const std::string& sub : help_subcommands(path)) {
    std::vector<std::string> child = path;
    child.push_back(sub);
    collect_paths(child, out);
  }
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words)
    text += (text.empty() ? "" : " ") + w;
  return text;
}

class CliDocs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    collect_paths({}, paths_);
    // One file per process: ctest runs each test of this suite as its own process, in parallel, and a shared file
    // could be sourced while another process rewrites it ("_chorus: command not found").
    script_ = ::testing::TempDir() + "chorus_completion_" + std::to_string(::getpid()) + ".bash";
    const testing_support::CliRun run = run_chorus({"--generate", "bash-completion"}, false);
    ASSERT_EQ(run.status, 0);
    std::ofstream(script_) << run.out;
  }
  static void TearDownTestSuite() { std::remove(script_.c_str()); }

  // What bash completes after `chorus WORDS... CURRENT<TAB>`, one word per entry.
  static std::set<std::string> complete(const std::vector<std::string>& words, const std::string& current) {
    std::string array = "chorus";
    // Appended piece by piece: `" " + std::string` trips a false -Wrestrict in GCC 12's char_traits.
    for (const std::string& w : words) {
      array += ' ';
      array += shell_quote(w);
    }
    array += ' ';
    array += shell_quote(current);
    const std::string script = "source " + shell_quote(script_) + "; COMP_WORDS=(" + array +
                               "); COMP_CWORD=" + std::to_string(words.size() + 1) +
                               "; _chorus; printf '%s\\n' \"${COMPREPLY[@]}\"";
    const std::string command = "timeout 30 bash -c " + shell_quote(script);
    std::set<std::string> replies;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr)
      return replies;
    std::string out;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      out.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0);
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty())
        replies.insert(line);
    return replies;
  }

  static inline std::vector<std::vector<std::string>> paths_;
  static inline std::string script_;
};

TEST_F(CliDocs, HelpListsNestedSubcommands) {
  // The walk itself must see the nested commands, or the tests below would check nothing below the top.
  EXPECT_GE(help_subcommands({}).size(), 8u);
  EXPECT_EQ(help_subcommands({"llm"}),
            (std::vector<std::string>{"run", "search", "validate", "infer", "calibrate", "systems"}));
}

TEST_F(CliDocs, CompletionOffersEverySubcommand) {
  for (const std::vector<std::string>& path : paths_) {
    const std::vector<std::string> subs = help_subcommands(path);
    if (subs.empty())
      continue;
    SCOPED_TRACE("chorus " + join(path));
    EXPECT_EQ(complete(path, ""), std::set<std::string>(subs.begin(), subs.end()));
  }
}

TEST_F(CliDocs, CompletionOffersEveryOption) {
  for (const std::vector<std::string>& path : paths_) {
    SCOPED_TRACE("chorus " + join(path));
    const std::set<std::string> options = help_options(path);
    ASSERT_FALSE(options.empty());  // at least -h,--help
    EXPECT_EQ(complete(path, "-"), options);
  }
}

TEST_F(CliDocs, CompletionPrefixSelects) {
  // "s" after chorus: the subcommands starting with s, from --help.
  std::set<std::string> expected;
  for (const std::string& sub : help_subcommands({}))
    if (sub[0] == 's')
      expected.insert(sub);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(complete({}, "s"), expected);
}

TEST_F(CliDocs, ManPageHasEveryCommandAndOption) {
  const testing_support::CliRun run = run_chorus({"--generate", "man"}, false);
  ASSERT_EQ(run.status, 0);
  EXPECT_EQ(run.out.rfind(".TH CHORUS 1", 0), 0u);
  auto roff = [](std::string text) { return std::regex_replace(text, std::regex("-"), "\\-"); };
  for (const std::vector<std::string>& path : paths_) {
    SCOPED_TRACE("chorus " + join(path));
    if (!path.empty()) {
      const std::string heading = ".SS \"" + roff("chorus " + join(path)) + "\"\n";
      const size_t at = run.out.find(heading);
      ASSERT_NE(at, std::string::npos);
      // Each option of the command appears in its own section (before the next heading).
      const std::string section = run.out.substr(at, run.out.find(".SS", at + 1) - at);
      for (const std::string& option : help_options(path))
        EXPECT_NE(section.find("\\fB" + roff(option) + "\\fR"), std::string::npos) << option;
    }
  }
}

TEST_F(CliDocs, GenerateRejectsUnknownFormat) {
  const testing_support::CliRun run = run_chorus({"--generate", "zsh"}, true);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.out.find("--generate"), std::string::npos);
}

TEST(CliVersion, MatchesProjectVersionInCMakeLists) {
  std::ifstream cmake(std::string(CHORUS_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << cmake.rdbuf();
  std::smatch match;
  const std::string contents = text.str();
  ASSERT_TRUE(std::regex_search(contents, match, std::regex(R"(project\(chorus VERSION ([0-9.]+))")));
  const testing_support::CliRun run = run_chorus({"--version"}, false);
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.out, "chorus " + match[1].str() + "\n");
}

}  // namespace
}  // namespace chorus
