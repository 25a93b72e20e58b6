// Library errors about a call's arguments name the argument's keyword (as Python spells it), never a CLI flag; the
// CLI turns the keyword back into the flag the user typed. One representative error per area (issue #14, part 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/fused/gpu.hpp"
#include "chorus/fused/operators.hpp"
#include "chorus/generate/moe.hpp"
#include "chorus/generate/trace_builder.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/pytorch/import.hpp"
#include "chorus/sweep/size_range.hpp"
#include "chorus/synth/demand.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;

// The error `f` throws, or a failed test when it throws none.
Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no chorus::Error";
  return Error("", "", "");
}

void expect_argument(const Error& e, const std::string& keyword) {
  EXPECT_TRUE(e.names_argument()) << e.what();
  EXPECT_EQ(e.field(), keyword) << e.what();
  EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
}

TEST(ArgumentErrors, FusedOperatorShape) {
  // A GEMV multiplies [M, K] by a vector: an N is an inconsistent shape.
  const fused::OperatorShape shape{.m = 64, .k = 64, .n = 8};
  expect_argument(error_of([&] { fused::operator_work(fused::FusedOp::GemvAllReduce, shape, 4); }), "n");
  expect_argument(error_of([] { fused::load_gpu("no-such-gpu"); }), "system");
}

TEST(ArgumentErrors, LlmSystemPreset) {
  expect_argument(error_of([] { llm::resolve_system("no-such-system"); }), "system");
}

TEST(ArgumentErrors, SweepSizeRangeKeepsTheArgumentInItsSubfields) {
  expect_argument(error_of([] { parse_size_range("8B:1KiB:x1", Argument{"size"}); }), "size");  // factor <= 1
  expect_argument(error_of([] { parse_size_range("8B:1KiB:xq", Argument{"size"}); }), "size factor");
}

TEST(ArgumentErrors, PytorchImport) {
  expect_argument(error_of([] { pytorch::import_pytorch(pytorch::ImportOptions{}, nullptr); }), "et");
}

TEST(ArgumentErrors, SynthDemandNamesTheFileAndTheArgument) {
  const Error e = error_of([] { read_demand_csv("/nonexistent/demand.csv", 4); });
  EXPECT_EQ(e.source(), "/nonexistent/demand.csv");
  EXPECT_TRUE(e.names_argument());
  EXPECT_EQ(e.field(), "demand");
}

TEST(ArgumentErrors, WorkloadGenerators) {
  MoeSpec moe;
  moe.experts = 60;  // not a multiple of ep = 8
  const Error e = error_of([&] { validate(moe); });
  EXPECT_TRUE(e.names_argument());
  EXPECT_EQ(e.field(), "experts");
  // An output directory below a regular file cannot be created.
  const fs::path file = fs::path(::testing::TempDir()) / "argument_errors_file";
  std::ofstream(file) << "x";
  const Error out = error_of([&] {
    write_rank_traces((file / "traces").string(), "t", 1, false, [](uint32_t) { return chakra::ChakraTrace{}; });
  });
  EXPECT_TRUE(out.names_argument());
  EXPECT_EQ(out.field(), "out");
}

// The CLI names the flag for the same errors: "--kineto", "--demand", "--size factor", "--gpus".
TEST(ArgumentErrorsCli, EachLineNamesTheFlag) {
  using testing_support::run_chorus_split;
  auto expect_line = [](const testing_support::CliRun& run, const std::string& text) {
    EXPECT_EQ(run.status, 2) << run.err;
    EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find(text), std::string::npos) << run.err;
  };
  // One Kineto trace for two execution traces (the counts are compared before any file is read).
  expect_line(run_chorus_split({"import", "pytorch", "--et", "a.json", "b.json", "--kineto", "k.json"}),
              "--kineto: 1 files for 2 execution traces");
  expect_line(run_chorus_split({"synth", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us",
                                "--collective", "all_to_all", "--demand", "/nonexistent/demand.csv"}),
              "/nonexistent/demand.csv: --demand: cannot open for reading");
  expect_line(run_chorus_split({"bound", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us",
                                "--collective", "all_gather", "--size", "8B:1KiB:xq"}),
              "--size factor: 'q' is not a number");
  // 8 GPUs do not split into tensor-parallel groups of 3.
  expect_line(
      run_chorus_split({"llm", "infer", "--model", std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama3-70b.json",
                        "--system", "h100-80gb", "--gpus", "8", "--tp", "3", "--prompt", "128", "--output", "16",
                        "--batch", "8"}),
      "--gpus: is 8, not a multiple of tp x pp = 3");
}

}  // namespace
}  // namespace chorus
