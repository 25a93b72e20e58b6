// The first-hour behaviour of the `chorus` CLI: bare size suffixes as nccl-tests reads them, a missing or
// mistyped subcommand or option explained with the list of subcommands and a "did you mean", and no progress
// output when stderr is not a terminal.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::CliRun;
using testing_support::run_chorus_split;

nlohmann::json parse_json(const CliRun& run) {
  EXPECT_EQ(run.status, 0) << run.err;
  const nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << run.out;
  return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::vector<std::string> ring_all_reduce(const std::string& size) {
  return {"collective",  "--topology", "ring:8",       "--bandwidth", "50GB/s", "--latency", "1us",
          "--algorithm", "ring",       "--collective", "all_reduce",  "--size", size,        "--json"};
}

TEST(FirstHourCli, BareGigaIsGibibyteEndToEnd) {
  nlohmann::json bare = parse_json(run_chorus_split(ring_all_reduce("1G")));
  nlohmann::json binary = parse_json(run_chorus_split(ring_all_reduce("1GiB")));
  bare.erase("wall_s");  // the only field allowed to differ between two runs
  binary.erase("wall_s");
  ASSERT_TRUE(bare.contains("size_bytes") && bare.contains("time_ns")) << bare.dump();
  EXPECT_EQ(bare["size_bytes"].get<int64_t>(), 1073741824);
  EXPECT_EQ(bare, binary);
  // 2 (p - 1) (alpha + (D / p) / B) = 14 * (1 us + 2^27 B / 50e9 B/s) = 14 * 2685.43545... us.
  EXPECT_NEAR(bare["time_ns"].get<double>(), 14.0 * (1000.0 + 134217728.0 / 50.0), 1.0);
}

TEST(FirstHourCli, DecimalGigabyteKeepsItsMeaning) {
  const nlohmann::json j = parse_json(run_chorus_split(ring_all_reduce("1GB")));
  EXPECT_EQ(j.value("size_bytes", int64_t{0}), 1000000000);
}

TEST(FirstHourCli, NoSubcommandListsThem) {
  const CliRun run = run_chorus_split({});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(first_line(run.err), "error: chorus: a subcommand is required (listed below)");
  // The listing follows on stderr: every subcommand with its description.
  for (const char* name : {"collective", "bound", "llm", "netopt", "sim", "generate", "convert", "synth"})
    EXPECT_NE(run.err.find(std::string("\n  ") + name + " "), std::string::npos) << name << " in\n" << run.err;
  EXPECT_NE(run.err.find("simulate one collective and compare it with the lower bound"), std::string::npos);
}

TEST(FirstHourCli, MistypedSubcommandGetsASuggestion) {
  const CliRun run = run_chorus_split({"colective", "--size", "1GiB"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(first_line(run.err), "error: chorus: unknown subcommand 'colective'; did you mean collective?");
  EXPECT_NE(run.err.find("\n  synth "), std::string::npos) << run.err;
}

TEST(FirstHourCli, MistypedNestedSubcommandGetsASuggestion) {
  const CliRun run = run_chorus_split({"llm", "serch"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(first_line(run.err), "error: chorus llm: unknown subcommand 'serch'; did you mean search?");
  EXPECT_NE(run.err.find("\n  validate "), std::string::npos) << run.err;
}

TEST(FirstHourCli, UnknownSubcommandWithoutNeighbour) {
  const CliRun run = run_chorus_split({"frobnicate"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(first_line(run.err), "error: chorus: unknown subcommand 'frobnicate'");
}

TEST(FirstHourCli, MistypedOptionGetsASuggestion) {
  // CLI11 alone reports "--collective is required"; the typo is the cause, so that is what is reported.
  const CliRun run = run_chorus_split({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency",
                                       "1us", "--colective", "all_reduce", "--size", "1GiB"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "error: chorus collective: unknown option '--colective'; did you mean --collective?\n");
  EXPECT_EQ(run.out, "");
}

TEST(FirstHourCli, MistypedOptionWithEqualsSign) {
  const CliRun run = run_chorus_split({"bound", "--topology=ring:8", "--sise=1GiB"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "error: chorus bound: unknown option '--sise'; did you mean --size?\n");
}

// A bound job with many max-flows (every sink of a 64-NPU ring, plus the information bound).
std::vector<std::string> many_max_flows(bool json) {
  std::vector<std::string> args = {"bound",   "--topology", "ring:64",      "--bandwidth", "50GB/s", "--latency", "1us",
                                   "--sinks", "all",        "--collective", "all_reduce",  "--size", "1GiB"};
  if (json)
    args.push_back("--json");
  return args;
}

// Sets an environment variable for one test (the CLI runs inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

// Runs chorus under `script`, so that its stdout and stderr are a terminal; returns what the terminal showed,
// or nullopt when `script` (util-linux) is not available.
std::optional<std::string> run_on_terminal(const std::vector<std::string>& args) {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    return std::nullopt;
  std::string inner = testing_support::shell_quote(CHORUS_BINARY);
  for (const std::string& a : args) {
    inner += ' ';
    inner += testing_support::shell_quote(a);
  }
  std::string command = "timeout -k 5 60 script -qec ";
  command += testing_support::shell_quote(inner);
  command += " /dev/null </dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr)
    return std::nullopt;
  std::string out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

TEST(FirstHourCli, NoProgressWhenStderrIsNotATerminal) {
  const ScopedEnv no_delay("CHORUS_PROGRESS_DELAY", "0");  // draw from the first update, were it a terminal
  const CliRun run = run_chorus_split(many_max_flows(false));
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.out.find("max-flows"), std::string::npos);
}

TEST(FirstHourCli, ProgressOnATerminalButNotWithJson) {
  const ScopedEnv no_delay("CHORUS_PROGRESS_DELAY", "0");
  const std::optional<std::string> text = run_on_terminal(many_max_flows(false));
  if (!text)
    GTEST_SKIP() << "no `script` to give chorus a terminal";
  EXPECT_NE(text->find("bound: max-flows "), std::string::npos) << *text;
  const std::optional<std::string> json = run_on_terminal(many_max_flows(true));
  ASSERT_TRUE(json);
  EXPECT_EQ(json->find("max-flows"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"bound_ns\""), std::string::npos) << *json;
}

TEST(FirstHourCli, ShortJobsStaySilentOnATerminal) {
  // The default delay (2 s) is far longer than this job: nothing but the result may appear.
  const std::optional<std::string> text = run_on_terminal(many_max_flows(false));
  if (!text)
    GTEST_SKIP() << "no `script` to give chorus a terminal";
  EXPECT_EQ(text->find("max-flows"), std::string::npos) << *text;
}

}  // namespace
}  // namespace chorus
