// Bad-input contract of the `chorus` CLI: every malformed or inconsistent input (network YAML, system JSON,
// edge-list file, command-line flag) must give exactly one line on stderr, "error: ...", naming the file and
// the field (or the flag), exit status 2, nothing on stdout, no crash and no hang.
//
// Each test writes its inputs into a fresh temporary directory and runs the real binary (CHORUS_BINARY) under
// `timeout`, with stdout and stderr captured to files.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace chorus {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTimeoutSeconds = "20";
constexpr int kTimedOutStatus = 124;  // what `timeout` exits with when the command ran too long

// What one run of the CLI did.
struct CliRun {
  bool exited = false;  // false: killed by a signal
  int status = -1;      // exit status, or the signal number when !exited
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Child side of run_cli(): redirect stdout/stderr, then exec `timeout SECONDS chorus ARGS...`.
[[noreturn]] void exec_child(const fs::path& out_path, const fs::path& err_path, const std::vector<std::string>& args) {
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (out_fd < 0 || err_fd < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0)
    _exit(127);
  std::vector<std::string> argv_text = {"timeout", "-k", "5", kTimeoutSeconds, CHORUS_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp("timeout", argv.data());
  _exit(127);
}

// Runs the CLI with `args`; `scratch` is a directory for the captured output.
CliRun run_cli(const fs::path& scratch, const std::vector<std::string>& args) {
  const fs::path out_path = scratch / "stdout.txt";
  const fs::path err_path = scratch / "stderr.txt";
  const pid_t pid = ::fork();
  if (pid == 0)
    exec_child(out_path, err_path, args);
  CliRun run;
  int wait_status = 0;
  if (pid < 0 || ::waitpid(pid, &wait_status, 0) != pid)
    return run;
  run.exited = WIFEXITED(wait_status);
  run.status = run.exited ? WEXITSTATUS(wait_status) : WTERMSIG(wait_status);
  run.out = read_text(out_path);
  run.err = read_text(err_path);
  return run;
}

std::string describe(const CliRun& run) {
  return std::string(run.exited ? "exit status " : "killed by signal ") + std::to_string(run.status) +
         "\n--- stdout ---\n" + run.out + "--- stderr ---\n" + run.err;
}

// The contract: exit 2, one "error: " line on stderr naming every string of `needles`, empty stdout.
void expect_input_error(const CliRun& run, const std::vector<std::string>& needles) {
  ASSERT_TRUE(run.exited) << "crashed: " << describe(run);
  ASSERT_NE(run.status, kTimedOutStatus) << "hung: " << describe(run);
  EXPECT_EQ(run.status, 2) << describe(run);
  EXPECT_TRUE(run.out.empty()) << describe(run);
  EXPECT_TRUE(run.err.starts_with("error: ")) << describe(run);
  EXPECT_TRUE(run.err.ends_with("\n")) << describe(run);
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "more than one line: " << describe(run);
  EXPECT_EQ(run.err.find("internal error"), std::string::npos) << describe(run);
  for (const std::string& needle : needles) {
    EXPECT_NE(run.err.find(needle), std::string::npos) << "does not name '" << needle << "': " << describe(run);
  }
}

constexpr const char* kGoodNetwork =
    "topology: [ Ring ]\n"
    "npus_count: [ 8 ]\n"
    "bandwidth: [ 50.0 ]\n"
    "latency: [ 500.0 ]\n";

constexpr const char* kGoodSystem = R"({
  "scheduling-policy": "LIFO",
  "endpoint-delay": 10,
  "active-chunks-per-dimension": 1,
  "preferred-dataset-splits": 4,
  "all-reduce-implementation": ["ring"],
  "all-gather-implementation": ["ring"],
  "reduce-scatter-implementation": ["ring"],
  "all-to-all-implementation": ["ring"],
  "collective-optimization": "localBWAware",
  "local-mem-bw": 1600
})";

// A 4-NPU bidirectional ring in the edge-list format: valid, but not an ASTRA-sim dimensional network.
constexpr const char* kGoodEdgeList =
    "# 4-NPU ring\n"
    "4\n"
    "0 1 50 0.5\n1 0 50 0.5\n1 2 50 0.5\n2 1 50 0.5\n"
    "2 3 50 0.5\n3 2 50 0.5\n3 0 50 0.5\n0 3 50 0.5\n";

// Replaces the first occurrence of `from` in `text` by `to` (the test inputs are small edits of good files).
std::string replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the template";
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

std::string good_network_with(const std::string& from, const std::string& to) {
  return replace(kGoodNetwork, from, to);
}
std::string good_system_with(const std::string& from, const std::string& to) {
  return replace(kGoodSystem, from, to);
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "chorus_bad_input_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // Writes `text` to `name` in the temporary directory and returns its path.
  std::string file(const std::string& name, const std::string& text) const {
    write_text(dir_ / name, text);
    return (dir_ / name).string();
  }

  CliRun run(const std::vector<std::string>& args) const { return run_cli(dir_, args); }

  // `chorus collective` with a network YAML of the given text and a good system file.
  CliRun run_network(const std::string& network_text, const std::string& collective = "all_reduce") const {
    return run({"collective", "--network", file("net.yml", network_text), "--system", file("sys.json", kGoodSystem),
                "--collective", collective, "--size", "1MiB"});
  }

  // `chorus collective` with a good 1-D ring network and a system JSON of the given text.
  CliRun run_system(const std::string& system_text, const std::string& collective = "all_reduce") const {
    return run({"collective", "--network", file("net.yml", kGoodNetwork), "--system", file("sys.json", system_text),
                "--collective", collective, "--size", "1MiB"});
  }

  // `chorus collective` on a native ring:8 topology with `extra` flags replacing or adding to the defaults.
  CliRun run_native(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {"collective", "--collective", "all_reduce"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }

  fs::path dir_;
};

const std::vector<std::string> kRing8 = {"--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- network YAML ------------------------------------------------------------------------------------------

TEST_F(BadInput, NetworkMissingTopology) {
  expect_input_error(run_network(good_network_with("topology: [ Ring ]\n", "")), {"net.yml", "topology"});
}

TEST_F(BadInput, NetworkMissingNpusCount) {
  expect_input_error(run_network(good_network_with("npus_count: [ 8 ]\n", "")), {"net.yml", "npus_count"});
}

TEST_F(BadInput, NetworkMissingBandwidth) {
  expect_input_error(run_network(good_network_with("bandwidth: [ 50.0 ]\n", "")), {"net.yml", "bandwidth"});
}

TEST_F(BadInput, NetworkMissingLatency) {
  expect_input_error(run_network(good_network_with("latency: [ 500.0 ]\n", "")), {"net.yml", "latency"});
}

TEST_F(BadInput, NetworkUnknownKey) {
  expect_input_error(run_network(std::string(kGoodNetwork) + "links_per_npu: [ 2 ]\n"), {"net.yml", "links_per_npu"});
}

TEST_F(BadInput, NetworkStringWhereList) {
  expect_input_error(run_network(good_network_with("bandwidth: [ 50.0 ]", "bandwidth: fast")),
                     {"net.yml", "bandwidth"});
}

TEST_F(BadInput, NetworkMismatchedListLengths) {
  expect_input_error(run_network(good_network_with("latency: [ 500.0 ]", "latency: [ 500.0, 700.0 ]")),
                     {"net.yml", "latency"});
}

TEST_F(BadInput, NetworkZeroBandwidth) {
  expect_input_error(run_network(good_network_with("50.0", "0")), {"net.yml", "bandwidth"});
}

TEST_F(BadInput, NetworkNegativeBandwidth) {
  expect_input_error(run_network(good_network_with("50.0", "-5.0")), {"net.yml", "bandwidth"});
}

TEST_F(BadInput, NetworkNegativeLatency) {
  expect_input_error(run_network(good_network_with("500.0", "-1.0")), {"net.yml", "latency"});
}

TEST_F(BadInput, NetworkOneNpu) {
  expect_input_error(run_network(good_network_with("[ 8 ]", "[ 1 ]")), {"net.yml", "npus_count"});
}

TEST_F(BadInput, NetworkZeroNpus) {
  expect_input_error(run_network(good_network_with("[ 8 ]", "[ 0 ]")), {"net.yml", "npus_count"});
}

TEST_F(BadInput, NetworkFractionalNpus) {
  expect_input_error(run_network(good_network_with("[ 8 ]", "[ 2.5 ]")), {"net.yml", "npus_count"});
}

TEST_F(BadInput, NetworkUnknownBlock) {
  expect_input_error(run_network(good_network_with("Ring", "Torus")), {"net.yml", "topology", "Torus"});
}

TEST_F(BadInput, NetworkYamlSyntaxError) {
  expect_input_error(run_network(good_network_with("[ Ring ]", "[ Ring")), {"net.yml"});
}

TEST_F(BadInput, NetworkMissingFile) {
  const std::string missing = (dir_ / "no_such_network.yml").string();
  expect_input_error(run({"collective", "--network", missing, "--system", file("sys.json", kGoodSystem), "--collective",
                          "all_reduce", "--size", "1MiB"}),
                     {"no_such_network.yml"});
}

// ---- system JSON -------------------------------------------------------------------------------------------

TEST_F(BadInput, SystemMissingSchedulingPolicy) {
  expect_input_error(run_system(good_system_with(R"("scheduling-policy": "LIFO",)", "")),
                     {"sys.json", "scheduling-policy"});
}

TEST_F(BadInput, SystemMissingCollectiveOptimization) {
  expect_input_error(run_system(good_system_with(R"("collective-optimization": "localBWAware",)", "")),
                     {"sys.json", "collective-optimization"});
}

TEST_F(BadInput, SystemMissingPreferredDatasetSplits) {
  expect_input_error(run_system(good_system_with(R"("preferred-dataset-splits": 4,)", "")),
                     {"sys.json", "preferred-dataset-splits"});
}

TEST_F(BadInput, SystemUnknownKey) {
  expect_input_error(run_system(good_system_with(R"("endpoint-delay": 10,)", R"("endpoint-delay": 10, "turbo": 1,)")),
                     {"sys.json", "turbo"});
}

TEST_F(BadInput, SystemZeroSplits) {
  expect_input_error(
      run_system(good_system_with(R"("preferred-dataset-splits": 4)", R"("preferred-dataset-splits": 0)")),
      {"sys.json", "preferred-dataset-splits"});
}

TEST_F(BadInput, SystemStringSplits) {
  expect_input_error(
      run_system(good_system_with(R"("preferred-dataset-splits": 4)", R"("preferred-dataset-splits": "4")")),
      {"sys.json", "preferred-dataset-splits"});
}

TEST_F(BadInput, SystemNegativeSplits) {
  expect_input_error(
      run_system(good_system_with(R"("preferred-dataset-splits": 4)", R"("preferred-dataset-splits": -1)")),
      {"sys.json", "preferred-dataset-splits"});
}

TEST_F(BadInput, SystemUnknownAlgorithm) {
  expect_input_error(run_system(good_system_with(R"("all-reduce-implementation": ["ring"])",
                                                 R"("all-reduce-implementation": ["rign"])")),
                     {"sys.json", "all-reduce-implementation", "rign"});
}

TEST_F(BadInput, SystemImplementationNotAList) {
  expect_input_error(run_system(good_system_with(R"("all-reduce-implementation": ["ring"])",
                                                 R"("all-reduce-implementation": "ring")")),
                     {"sys.json", "all-reduce-implementation"});
}

TEST_F(BadInput, SystemMissingAllGatherImplementation) {
  expect_input_error(run_system(good_system_with(R"("all-gather-implementation": ["ring"],)", ""), "all_gather"),
                     {"sys.json", "all-gather-implementation"});
}

TEST_F(BadInput, SystemInvalidJson) {
  expect_input_error(run_system(good_system_with(R"("LIFO",)", R"("LIFO" "endpoint)")), {"sys.json"});
}

TEST_F(BadInput, SystemMoreAlgorithmsThanDimensions) {
  expect_input_error(run_system(good_system_with(R"("all-reduce-implementation": ["ring"])",
                                                 R"("all-reduce-implementation": ["ring", "ring", "ring", "ring"])")),
                     {"sys.json", "all-reduce-implementation"});
}

TEST_F(BadInput, SystemMissingFile) {
  const std::string missing = (dir_ / "no_such_system.json").string();
  expect_input_error(run({"collective", "--network", file("net.yml", kGoodNetwork), "--system", missing, "--collective",
                          "all_reduce", "--size", "1MiB"}),
                     {"no_such_system.json"});
}

// ---- command-line flags ------------------------------------------------------------------------------------

TEST_F(BadInput, FlagSizeUnknownUnit) {
  expect_input_error(run_native(concat(kRing8, {"--size", "12XB"})), {"--size", "12XB"});
}

TEST_F(BadInput, FlagSizeNegative) {
  expect_input_error(run_native(concat(kRing8, {"--size", "-1MiB"})), {"--size"});
}

TEST_F(BadInput, FlagUnknownCollective) {
  expect_input_error(run(concat({"collective", "--collective", "allreduce2", "--size", "1MiB"}, kRing8)),
                     {"--collective", "allreduce2"});
}

TEST_F(BadInput, FlagUnknownAlgorithm) {
  expect_input_error(run_native(concat(kRing8, {"--size", "1MiB", "--algorithm", "foo"})), {"--algorithm", "foo"});
}

TEST_F(BadInput, FlagTopologyZeroDimension) {
  expect_input_error(
      run_native({"--topology", "torus2d:4x0", "--bandwidth", "50GB/s", "--latency", "1us", "--size", "1MiB"}),
      {"--topology", "torus2d:4x0"});
}

TEST_F(BadInput, FlagTopologyWithoutBandwidth) {
  expect_input_error(run_native({"--topology", "torus2d:4x4", "--latency", "1us", "--size", "1MiB"}), {"--bandwidth"});
}

TEST_F(BadInput, FlagZeroBandwidth) {
  expect_input_error(run_native({"--topology", "ring:8", "--bandwidth", "0GB/s", "--latency", "1us", "--size", "1MiB"}),
                     {"--bandwidth"});
}

TEST_F(BadInput, FlagLatencyWithoutUnit) {
  expect_input_error(run_native({"--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "5", "--size", "1MiB"}),
                     {"--latency"});
}

TEST_F(BadInput, FlagZeroSplits) {
  expect_input_error(run_native(concat(kRing8, {"--size", "1MiB", "--splits", "0"})), {"--splits"});
}

TEST_F(BadInput, FlagBothNetworkAndTopology) {
  expect_input_error(run_native({"--network", file("net.yml", kGoodNetwork), "--topology", "ring:8", "--size", "1MiB"}),
                     {"--network", "--topology"});
}

TEST_F(BadInput, FlagNeitherNetworkNorTopology) {
  expect_input_error(run_native({"--size", "1MiB"}), {"--network", "--topology"});
}

TEST_F(BadInput, FlagSystemWithEdgeList) {
  expect_input_error(run_native({"--topology", file("ring4.txt", kGoodEdgeList), "--system",
                                 file("sys.json", kGoodSystem), "--size", "1MiB"}),
                     {"--system"});
}

TEST_F(BadInput, FlagHalvingDoublingOnNonPowerOfTwo) {
  expect_input_error(run_native({"--topology", "ring:6", "--bandwidth", "50GB/s", "--latency", "1us", "--algorithm",
                                 "halvingDoubling", "--size", "1MiB"}),
                     {"algorithm", "halvingDoubling"});
}

TEST_F(BadInput, EdgeListBadLine) {
  const std::string text = replace(kGoodEdgeList, "1 2 50 0.5\n", "1 x 50 0.5\n");  // line 5 of the file
  expect_input_error(run_native({"--topology", file("ring4.txt", text), "--size", "1MiB"}), {"ring4.txt", "line 5"});
}

TEST_F(BadInput, EdgeListShortLine) {
  const std::string text = replace(kGoodEdgeList, "2 3 50 0.5\n", "2 3\n");  // line 7 of the file
  expect_input_error(run_native({"--topology", file("ring4.txt", text), "--size", "1MiB"}), {"ring4.txt", "line 7"});
}

TEST_F(BadInput, UnknownFlag) {
  expect_input_error(run_native(concat(kRing8, {"--size", "1MiB", "--turbo"})), {"--turbo"});
}

TEST_F(BadInput, MissingSizeFlag) {
  expect_input_error(run_native(kRing8), {"--size"});
}

// ---- out-of-range values: each must be a range error naming the key, not an overflow or an allocation -------

TEST_F(BadInput, FlagHugeActiveChunks) {
  expect_input_error(run_native(concat(kRing8, {"--size", "1MiB", "--active-chunks", "4000000000"})),
                     {"--active-chunks"});
}

TEST_F(BadInput, SystemHugeActiveChunks) {
  expect_input_error(run_system(good_system_with(R"("active-chunks-per-dimension": 1)",
                                                 R"("active-chunks-per-dimension": 1073741824)")),
                     {"sys.json", "active-chunks-per-dimension"});
}

TEST_F(BadInput, SystemHugeEndpointDelay) {
  expect_input_error(run_system(good_system_with(R"("endpoint-delay": 10)", R"("endpoint-delay": 1e300)")),
                     {"sys.json", "endpoint-delay"});
}

TEST_F(BadInput, NetworkTinyBandwidth) {
  expect_input_error(run_network(good_network_with("50.0", "1e-300")), {"net.yml", "bandwidth"});
}

TEST_F(BadInput, FlagTinyBandwidth) {
  expect_input_error(
      run_native({"--topology", "ring:8", "--bandwidth", "1e-300GB/s", "--latency", "1us", "--size", "1MiB"}),
      {"--bandwidth"});
}

// A ring too long to hold one NPU's program in memory is refused, not allocated.
TEST_F(BadInput, FlagRingTooLongForItsProgram) {
  expect_input_error(
      run_native({"--topology", "ring:4000000", "--bandwidth", "50GB/s", "--latency", "1us", "--size", "1MiB"}),
      {"--algorithm", "4000000"});
}

// A full schedule of 134 million transfers is refused, not allocated.
TEST_F(BadInput, FlagHugeFullSchedule) {
  expect_input_error(run_native({"--topology", "ring:4096", "--bandwidth", "50GB/s", "--latency", "1us", "--size",
                                 "1MiB", "--splits", "4", "--model", "flow", "--evaluation", "schedule"}),
                     {"--evaluation", "transfers"});
}

// ---- chorus bound -----------------------------------------------------------------------------------------
// CLI11's "The following arguments were not expected" would name the flags too; it means the subcommand did
// not accept them at all, which is not the error under test.

void expect_flags_accepted(const CliRun& run) {
  EXPECT_EQ(run.err.find("not expected"), std::string::npos) << describe(run);
}

TEST_F(BadInput, BoundUnknownCollective) {
  const CliRun result = run(concat({"bound", "--collective", "allreduce2", "--size", "1MiB"}, kRing8));
  expect_input_error(result, {"--collective", "allreduce2"});
  expect_flags_accepted(result);
}

TEST_F(BadInput, BoundBadSize) {
  const CliRun result = run(concat({"bound", "--collective", "all_gather", "--size", "12XB"}, kRing8));
  expect_input_error(result, {"--size", "12XB"});
  expect_flags_accepted(result);
}

// ---- generate llm ------------------------------------------------------------------------------------------

class BadLlm : public BadInput {
 protected:
  CliRun generate(const std::vector<std::string>& extra) const {
    return run(concat({"generate", "llm", "--out", (dir_ / "traces").string()}, extra));
  }
};

TEST_F(BadLlm, UnknownModelPreset) {
  expect_input_error(generate({"--model", "gpt5"}), {"--model", "gpt5"});
}

TEST_F(BadLlm, ModelFileMissingKey) {
  const std::string model = file("model.json", R"({"hidden": 64, "feedforward": 256, "seq_size": 32,
      "attn_heads": 4, "attn_size": 16})");
  expect_input_error(generate({"--model", model}), {"model.json", "num_blocks"});
}

TEST_F(BadLlm, PipelineDoesNotDivideLayers) {
  expect_input_error(generate({"--model", "gpt3-175b", "--pp", "5"}), {"--pp", "96"});
}

TEST_F(BadLlm, TensorParallelDoesNotDivideHeads) {
  expect_input_error(generate({"--model", "llama2-70b", "--tp", "16"}), {"--tp", "kv_heads 8"});
}

TEST_F(BadLlm, ZeroDataParallel) {
  expect_input_error(generate({"--model", "gpt3-175b", "--dp", "0"}), {"--dp"});
}

TEST_F(BadLlm, ZeroMicrobatches) {
  expect_input_error(generate({"--model", "gpt3-175b", "--microbatches", "0"}), {"--microbatches"});
}

TEST_F(BadLlm, ZeroMicrobatchSize) {
  expect_input_error(generate({"--model", "gpt3-175b", "--microbatch-size", "0"}), {"--microbatch-size"});
}

TEST_F(BadLlm, UnknownGpu) {
  expect_input_error(generate({"--model", "gpt3-175b", "--gpu", "tpu"}), {"--gpu", "tpu"});
}

TEST_F(BadLlm, ZeroPeakPerf) {
  expect_input_error(generate({"--model", "gpt3-175b", "--peak-perf", "0"}), {"--peak-perf"});
}

TEST_F(BadLlm, ContextParallelDoesNotDivideTheSequence) {
  expect_input_error(generate({"--model", "gpt3-175b", "--cp", "3"}), {"--cp", "2048"});
}

TEST_F(BadLlm, ExpertParallelOnADenseModel) {
  expect_input_error(generate({"--model", "gpt3-175b", "--dp", "2", "--ep", "2"}), {"--ep", "no experts"});
}

TEST_F(BadLlm, UnknownZeroStage) {
  expect_input_error(generate({"--model", "gpt3-175b", "--fsdp", "zero4"}), {"--fsdp", "zero4"});
}

TEST_F(BadInput, SimContentionNeedsFlow) {
  const std::string traces = (dir_ / "traces").string();
  ASSERT_EQ(
      run({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size", "1MiB", "--out", traces})
          .status,
      0);
  expect_input_error(run(concat({"sim", "--workload", traces, "--model", "aware", "--contention"}, kRing8)),
                     {"--contention", "flow"});
}

// ---- chorus synth --demand (All-to-All demand matrix) --------------------------------------------------------
// ring:4 has NPUs 0-3, so the matrix is 4 x 4; each message names the file, the row and the column.

class BadDemand : public BadInput {
 protected:
  CliRun synth(const std::string& matrix, const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {
        "synth",        "--topology", "ring:4",   "--bandwidth",        "50GB/s", "--latency", "1us",
        "--collective", "all_to_all", "--demand", file("d.csv", matrix)};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
};

TEST_F(BadDemand, TooFewRows) {
  expect_input_error(synth("0,1,1,1\n1,0,1,1\n1,1,0,1\n"), {"d.csv", "row 3", "3 of 4 rows"});
}

TEST_F(BadDemand, TooManyColumns) {
  expect_input_error(synth("0,1,1,1\n1,0,1,1,7\n1,1,0,1\n1,1,1,0\n"), {"d.csv", "row 1, column 4", "too many"});
}

TEST_F(BadDemand, TooFewColumns) {
  expect_input_error(synth("0,1,1,1\n1,0,1,1\n1,1,0\n1,1,1,0\n"), {"d.csv", "row 2, column 3", "is missing"});
}

TEST_F(BadDemand, NegativeEntry) {
  expect_input_error(synth("0,1,1,1\n1,0,-5,1\n1,1,0,1\n1,1,1,0\n"), {"d.csv", "row 1, column 2", "-5", ">= 0"});
}

TEST_F(BadDemand, NonNumericEntry) {
  expect_input_error(synth("0,1,1,1\n1,0,1,1\n1,1,0,lots\n1,1,1,0\n"), {"d.csv", "row 2, column 3", "lots"});
}

TEST_F(BadDemand, TrafficToAFailedNpu) {
  expect_input_error(synth("0,1,1,1\n1,0,1,1\n1,1,0,1\n1,1,1,0\n", {"--fail-npus", "2"}),
                     {"d.csv", "row 0, column 2", "NPU 2", "failed"});
}

TEST_F(BadDemand, OnlyForAllToAll) {
  expect_input_error(
      run({"synth", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us", "--collective", "all_gather",
           "--size", "1MiB", "--demand", file("d.csv", "0,1,1,1\n1,0,1,1\n1,1,0,1\n1,1,1,0\n")}),
      {"--demand", "all_to_all"});
}

}  // namespace
}  // namespace chorus
