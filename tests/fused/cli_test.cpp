// `chorus fused`, `chorus fuse`, `chorus generate dlrm|moe` and the fused report of `chorus sim`, run as a user
// runs them; bad input is one line and exit status 2.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::CliRun;

CliRun run_cli(const std::vector<std::string>& args) {
  return testing_support::run_chorus(args, true);
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("chorus_fused_cli_" + name);
  fs::remove_all(dir);
  return dir;
}

const std::vector<std::string> kGemv = {
    "fused",    "--op",      "gemv-all-reduce", "--m",      "8192",        "--k",     "8192",      "--npus", "8",
    "--system", "h100-80gb", "--topology",      "switch:8", "--bandwidth", "450GB/s", "--latency", "1us"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(FusedCli, GemvAllReduceJsonHoldsItsInvariants) {
  const CliRun run = run_cli(with(kGemv, {"--json"}));
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  for (const char* key : {"fused_ns", "unfused_ns", "compute_ns", "collective_ns", "bound_ns"})
    ASSERT_TRUE(j.contains(key)) << key;
  // Each GPU multiplies [8192, 1024] by a 1024-vector: 2 * (8192*1024 + 1024 + 8192) = 16,795,648 bytes of bf16
  // through 3.35 TB/s = 5,013.626 ns; 16.8 MFLOP at 989 TFLOP/s is 17 ns, so the GEMV is memory-bound.
  EXPECT_NEAR(j["compute_ns"].get<double>(), 5013.626, 0.01);
  EXPECT_TRUE(j["memory_bound"].get<bool>());
  // The All-Reduce carries the 8192-element partial: 16,384 bytes.
  EXPECT_EQ(j["comm_size"].get<int64_t>(), 16384);
  EXPECT_DOUBLE_EQ(j["unfused_ns"].get<double>(), j["compute_ns"].get<double>() + j["collective_ns"].get<double>());
  EXPECT_LE(j["fused_ns"].get<double>(), j["unfused_ns"].get<double>() + j["tile_compute_ns"].get<double>());
  EXPECT_GE(j["fused_ns"].get<double>(), j["bound_ns"].get<double>());
  EXPECT_GE(j["bound_ns"].get<double>(), j["compute_ns"].get<double>());
}

TEST(FusedCli, TextSaysWhenFusionDoesNotPay) {
  // 64 tiles of a 5 us GEMV, each paying a 10 us issue cost: 640 us of overhead against a 33 us pair.
  const CliRun run = run_cli(with(kGemv, {"--tiles", "64", "--tile-overhead", "10us"}));
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("fusion does not pay here"), std::string::npos) << run.out;
}

void expect_one_line_error(const CliRun& run, const std::string& needle) {
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_EQ(run.out.rfind("error: ", 0), 0u) << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  EXPECT_NE(run.out.find(needle), std::string::npos) << run.out;
}

TEST(FusedCliBadInput, OneLineAndExitTwo) {
  expect_one_line_error(run_cli(with(kGemv, {"--tiles", "0"})), "--tiles: is 0");
  expect_one_line_error(run_cli(with(kGemv, {"--n", "4"})), "--n: gemv-all-reduce");
  std::vector<std::string> bad_gpu = kGemv;
  bad_gpu[10] = "h900";
  expect_one_line_error(run_cli(bad_gpu), "unknown GPU 'h900'");
  expect_one_line_error(run_cli(with(kGemv, {"--dtype", "int3"})), "unknown datatype 'int3'");
  std::vector<std::string> wrong_npus = kGemv;
  wrong_npus[8] = "16";
  expect_one_line_error(run_cli(wrong_npus), "--npus: is 16, but the network has 8 NPUs");
  std::vector<std::string> bad_op = kGemv;
  bad_op[2] = "gemv-all-gather";
  expect_one_line_error(run_cli(bad_op), "unknown fused operator");
}

TEST(GenerateCliBadInput, InconsistentSizesAreOneLine) {
  const fs::path out = fresh("bad_generate");
  expect_one_line_error(run_cli({"generate", "dlrm", "--nodes", "1", "--dim", "64", "--out", out.string()}),
                        "--bottom-mlp: ends at width 128, but the embedding dimension --dim is 64");
  expect_one_line_error(run_cli({"generate", "dlrm", "--tables", "0", "--out", out.string()}), "--tables: is 0");
  // A value past the GPU limit alone is named alone (repro2 13); a product past it names both options.
  expect_one_line_error(run_cli({"generate", "dlrm", "--gpus-per-node", "65537", "--out", out.string()}),
                        "--gpus-per-node: is 65537; must be at most 65536 (kMaxGeneratedNpus)");
  expect_one_line_error(
      run_cli({"generate", "dlrm", "--nodes", "512", "--gpus-per-node", "256", "--out", out.string()}),
      "--nodes/--gpus-per-node: 512 x 256 GPUs; must be 2 to 65536");
  expect_one_line_error(run_cli({"generate", "moe", "--experts", "60", "--ep", "8", "--out", out.string()}),
                        "--experts: is 60, not a multiple of --ep 8");
  expect_one_line_error(run_cli({"generate", "moe", "--top-k", "0", "--out", out.string()}), "--top-k: is 0");
  expect_one_line_error(run_cli({"fuse", "--workload", out.string(), "--out", out.string(), "--tiles", "0"}),
                        "--tiles: is 0");
}

TEST(FuseCli, DlrmChainsAreFusedAndTheAllReduceIsSkippedWithItsReason) {
  const fs::path dir = fresh("dlrm");
  const CliRun gen = run_cli({"generate", "dlrm", "--nodes", "1", "--gpus-per-node", "4", "--tables", "8",
                              "--batch-per-gpu", "64", "--out", (dir / "dlrm").string()});
  ASSERT_EQ(gen.status, 0) << gen.out;
  const CliRun fuse = run_cli({"fuse", "--workload", (dir / "dlrm").string(), "--out", (dir / "fused").string()});
  ASSERT_EQ(fuse.status, 0) << fuse.out;
  // Per rank: the forward All-to-All after embedding_fwd and the backward one after interaction_bwd are fused;
  // the MLP All-Reduce waits on two backward passes, so it is not.
  EXPECT_NE(fuse.out.find("4 x embedding-all-to-all"), std::string::npos) << fuse.out;
  EXPECT_NE(fuse.out.find("4 x gemm-all-to-all"), std::string::npos) << fuse.out;
  EXPECT_NE(fuse.out.find("4 x the collective depends on 2 nodes"), std::string::npos) << fuse.out;
  const CliRun only = run_cli({"fuse", "--workload", (dir / "dlrm").string(), "--out", (dir / "only").string(),
                               "--only", "embedding-all-to-all"});
  ASSERT_EQ(only.status, 0) << only.out;
  EXPECT_NE(only.out.find("--only embedding-all-to-all leaves out gemm-all-to-all"), std::string::npos) << only.out;

  const CliRun sim = run_cli({"sim", "--workload", (dir / "fused").string(), "--topology", "switch:4", "--bandwidth",
                              "100GB/s", "--latency", "1us", "--out", (dir / "results").string()});
  ASSERT_EQ(sim.status, 0) << sim.out;
  std::ifstream in(dir / "results" / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  ASSERT_TRUE(summary.contains("fused_ops"));
  ASSERT_EQ(summary["fused_ops"].size(), 2u);  // one per fused collective instance (its group of 4 runs it once)
  for (const auto& f : summary["fused_ops"]) {
    EXPECT_DOUBLE_EQ(f["unfused_ns"].get<double>(), f["compute_ns"].get<double>() + f["collective_ns"].get<double>());
    EXPECT_GE(f["fused_ns"].get<double>(), std::max(f["compute_ns"].get<double>(), 0.0));
    EXPECT_EQ(f["tiles"].get<int>(), 8);
  }
  EXPECT_EQ(summary["below_bound_count"].get<int>(), 0);
}

}  // namespace
}  // namespace chorus
