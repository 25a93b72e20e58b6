// `chorus import pytorch` end to end: the written Chakra traces run in `chorus sim`, --json, and every kind of bad
// input is one line naming the file and node, exit status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::run_chorus_split;

std::string data(const std::string& name) {
  return std::string(CHORUS_SOURCE_DIR) + "/tests/data/pytorch/" + name;
}

class PytorchImportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("chorus_pytorch_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // A valid 1.0.1 trace around one operator whose fields are `op`.
  std::string trace_with(const std::string& name, const std::string& op, const std::string& schema = "1.0.1") const {
    return write(name, R"({"schema": ")" + schema + R"(", "nodes": [
      {"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "parent": 1, "tid": 1, "inputs": []},
      )" + op + R"(,
      {"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "parent": 1, "tid": 0, "inputs": []}]})");
  }

  // `chorus import pytorch --et <the four schema_1_1_shard_4r ranks> EXTRA...`
  static std::vector<std::string> import_shard(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"import", "pytorch", "--et"};
    for (int r = 0; r < 4; ++r)
      args.push_back(data("schema_1_1_shard_4r.et." + std::to_string(r) + ".json"));
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  static testing_support::CliRun sim_ring4(const std::string& prefix) {
    return run_chorus_split(
        {"sim", "--workload", prefix, "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us", "--json"});
  }

  static void expect_one_line_error(const testing_support::CliRun& run, const std::string& file,
                                    const std::string& part) {
    EXPECT_EQ(run.status, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(file), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(part), std::string::npos) << run.err;
  }

  std::filesystem::path dir_;
};

TEST_F(PytorchImportCli, DdpImportsAndSimulates) {
  const std::string prefix = (dir_ / "ddp").string();
  const auto imported = run_chorus_split({"import", "pytorch", "--et", data("ddp_mlp_2r.et.0.json"),
                                          data("ddp_mlp_2r.et.1.json"), "--out", prefix, "--json"});
  ASSERT_EQ(imported.status, 0) << imported.err;
  const auto doc = nlohmann::json::parse(imported.out);
  ASSERT_EQ(doc["ranks"].size(), 2u);
  for (const auto& rank : doc["ranks"]) {
    EXPECT_EQ(rank["collectives"], 1);
    EXPECT_EQ(rank["comm_bytes"], 3232);  // 808 float32 parameters (recover_test.cpp)
    EXPECT_EQ(rank["trace_nodes"], 160);  // the nodes of the recorded file (python: len(json.load(f)["nodes"]))
    EXPECT_EQ(rank["timing"], "none");
  }
  ASSERT_TRUE(std::filesystem::exists(prefix + ".0.et"));
  ASSERT_TRUE(std::filesystem::exists(prefix + ".1.et"));
  // The all_reduce of 3232 bytes on ring:2 at 50 GB/s and 1 us: chorus's native ring, one chunk: 2(N-1) = 2
  // steps of 3232/2 = 1616 bytes, each 1 us + 1616 B / 50 GB/s = 1000 + 32.32 ns: 2064.64 ns. The 27 COMP
  // nodes (per rank: 28 Chakra nodes, one the all_reduce) have no recorded time, so each is charged 1 ns (0 us ->
  // 1 ns, as ASTRA-sim), and all are on the critical path: those before the all_reduce issue it, the first
  // after it reads the bucket. Finish: 2064.64 + 27 = 2091.64 ns.
  const auto sim = run_chorus_split(
      {"sim", "--workload", prefix, "--topology", "ring:2", "--bandwidth", "50GB/s", "--latency", "1us", "--json"});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto summary = nlohmann::json::parse(sim.out);
  EXPECT_EQ(summary["collective_count"], 1);
  EXPECT_EQ(summary["nodes"], 56);
  EXPECT_NEAR(summary["collectives"][0]["duration_ns"].get<double>(), 2064.64, 0.01);
  EXPECT_NEAR(summary["finish_ns"].get<double>(), 2091.64, 0.01);
}

TEST_F(PytorchImportCli, ReduceScatterImportsAndSimulates) {
  // schema_1_1_shard_4r (write_schema_1_1_traces.py): per rank a reduce_scatter of 8192 bytes on the world, one of
  // 2048 bytes on its pair group ({0,1} or {2,3}), a broadcast of 1024 bytes on the world (recover_test.cpp).
  const std::string prefix = (dir_ / "shard").string();
  const auto imported = run_chorus_split(import_shard({"--out", prefix}));
  ASSERT_EQ(imported.status, 0) << imported.err;
  // No --kineto: the broadcast has no measured time, which chorus sim replays.
  EXPECT_NE(imported.err.find("schema_1_1_shard_4r.et.0.json: node 11: 1 broadcast(s) without a measured NCCL"),
            std::string::npos)
      << imported.err;
  // ring:4 at 50 GB/s and 1 us per message, chorus's native ring, one chunk. The chain of each rank: the
  // process_group:init and aten::mm COMP nodes, 1 ns each (no recorded time: 0 us -> 1 ns), so the world
  // reduce_scatter is issued at 2 ns on every rank: N-1 = 3 steps of 8192/4 = 2048 bytes, each
  // 1000 + 2048 B / 50 GB/s = 1040.96 ns: 3122.88 ns, done at 3124.88. The pair reduce_scatter reads its output
  // (same storage): a 2-member logical ring whose hop is one link (ring:4 is bidirectional, members adjacent),
  // 1 step of 2048/2 = 1024 bytes: 1000 + 20.48 = 1020.48 ns, done at 4145.36. The broadcast (replayed, 0 us)
  // adds nothing; aten::add reads o after it: 1 ns. Finish: 4146.36 ns. Collectives simulated: the world
  // reduce_scatter and one pair reduce_scatter per group (3); the replayed broadcast is not one.
  const auto sim = sim_ring4(prefix);
  ASSERT_EQ(sim.status, 0) << sim.err;
  const auto summary = nlohmann::json::parse(sim.out);
  EXPECT_EQ(summary["collective_count"], 3);
  EXPECT_EQ(summary["nodes"], 28);  // 7 per rank: METADATA, 3 COMP, 3 COMM_COLL
  for (const auto& c : summary["collectives"]) {
    EXPECT_EQ(c["type"], "REDUCE_SCATTER");
    EXPECT_NEAR(c["duration_ns"].get<double>(), c["group_npus"] == 4 ? 3122.88 : 1020.48, 0.01) << c.dump();
  }
  EXPECT_NEAR(summary["finish_ns"].get<double>(), 4146.36, 0.01);
}

TEST_F(PytorchImportCli, MeasuredBroadcastIsReplayed) {
  // The same program with a Kineto trace per rank: c10d::broadcast_ (rf_id 9) launched an NCCL kernel of 5 us.
  // chorus sim replays it: the finish above plus 5000 ns = 9146.36 ns, and there is nothing to warn about.
  const std::string prefix = (dir_ / "shard_k").string();
  std::vector<std::string> extra = {"--out", prefix, "--kineto"};
  for (const std::string rank : {"0", "1", "2", "3"})
    extra.push_back(write("kineto." + rank + ".json", R"({"distributedInfo": {"rank": )" + rank +
                                                          R"(, "world_size": 4}, "traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "c10d::broadcast_", "ts": 10, "dur": 3, "args": {"Record function id": 9, "External id": 50}},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_Broadcast_RING_LL", "ts": 12, "dur": 5, "args": {"External id": 50}}]})"));
  const auto imported = run_chorus_split(import_shard(extra));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.err.find("broadcast"), std::string::npos) << imported.err;
  const auto sim = sim_ring4(prefix);
  ASSERT_EQ(sim.status, 0) << sim.err;
  EXPECT_NEAR(nlohmann::json::parse(sim.out)["finish_ns"].get<double>(), 9146.36, 0.01);
}

TEST_F(PytorchImportCli, TextReportSaysWhenThereAreNoDurations) {
  const auto run =
      run_chorus_split({"import", "pytorch", "--et", data("exchange_2r.et.0.json"), data("exchange_2r.et.1.json")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("no durations"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("all_to_all"), std::string::npos) << run.out;
}

TEST_F(PytorchImportCli, UnknownSchemaWarnsAndContinues) {
  const auto path =
      trace_with("future.json", R"({"name": "aten::mm", "id": 3, "parent": 2, "tid": 1, "inputs": []})", "9.9.9");
  const auto run = run_chorus_split({"import", "pytorch", "--et", path});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("warning: " + path + ": schema: '9.9.9'"), std::string::npos) << run.err;
}

TEST_F(PytorchImportCli, NotAnExecutionTrace) {
  // A Kineto trace (a JSON list) given as --et, and an object without "nodes".
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", data("ddp_mlp_2r.kineto.0.json")}),
                        "ddp_mlp_2r.kineto.0.json", "is a JSON array");
  const auto other = write("other.json", R"({"schema": "1.0.1", "traceEvents": []})");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", other}), other, "nodes: missing");
  const auto scalar = write("scalar.json", R"("a string")");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", scalar}), scalar, "is not a JSON object");
  const auto cut = write("cut.json", R"({"schema": "1.0.1", "nodes": [{"name": "a", "id": 2,)");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", cut}), cut, "invalid JSON");
}

TEST_F(PytorchImportCli, TensorDescriptorOfWrongArity) {
  const auto path = trace_with(
      "arity.json", R"({"name": "c10d::allreduce_", "id": 5, "parent": 2, "tid": 1, "inputs": [[[3,4,0,256,"cpu"]]]})");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", path}), path,
                        "node 5: tensor descriptor has 5 fields; expected 6");
}

TEST_F(PytorchImportCli, DependencyOnAnAbsentNode) {
  const auto path = trace_with("orphan.json", R"({"name": "aten::mm", "id": 7, "parent": 99, "tid": 1, "inputs": []})");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", path}), path,
                        "node 7: parent 99 names no node in the trace");
  const auto dup = trace_with("dup.json", R"({"name": "aten::mm", "id": 2, "parent": 1, "tid": 1, "inputs": []})");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", dup}), dup, "id appears twice");
}

TEST_F(PytorchImportCli, RanksMissingFromTheSet) {
  // Two of the four schema-1.1 ranks: the all_gather's group says pg_size 4.
  expect_one_line_error(
      run_chorus_split({"import", "pytorch", "--et", data("schema_1_1_4r.et.0.json"), data("schema_1_1_4r.et.1.json")}),
      "schema_1_1_4r.et.0.json", "node 8: pg_size 4 of group '0' exceeds the 2 trace files given");
  // Two of the four 1.13 exchange ranks: rank 0 receives from rank 3.
  expect_one_line_error(
      run_chorus_split({"import", "pytorch", "--et", data("exchange_4r.et.0.json"), data("exchange_4r.et.1.json")}),
      "exchange_4r.et.0.json", "node 12: recv peer rank 3 is not another of the 2 ranks given");
  // Rank 1 of another program: its world collectives do not line up with rank 0's.
  expect_one_line_error(
      run_chorus_split({"import", "pytorch", "--et", data("ddp_mlp_2r.et.0.json"), data("tp_linear_2r.et.1.json")}),
      "tp_linear_2r.et.1.json", "world collective #1 is all_gather of 256 bytes here and all_reduce of 3232 bytes");
  expect_one_line_error(run_chorus_split({"import", "pytorch", "--et", data("ddp_mlp_2r.et.0.json"),
                                          data("ddp_mlp_2r.et.1.json"), "--kineto", data("ddp_mlp_2r.kineto.0.json")}),
                        "--kineto", "1 files for 2 execution traces");
}

}  // namespace
}  // namespace chorus
