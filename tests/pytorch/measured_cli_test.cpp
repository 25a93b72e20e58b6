// `chorus sim --measured`: the measured timeline that `chorus import pytorch --kineto` records, beside the simulated
// one (per rank, per op, both critical paths), and its bad inputs as one line naming the file and field, exit 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/cli_runner.hpp"
#include "../support/input_error.hpp"

namespace chorus {
namespace {

using testing_support::expect_input_error;
using testing_support::run_chorus;
using testing_support::run_chorus_split;

std::string data(const std::string& name) {
  return std::string(CHORUS_SOURCE_DIR) + "/tests/data/pytorch/" + name;
}

class MeasuredCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("chorus_measured_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Imports `stem`.et.<r>.json with `stem`.kineto.<r>.json for two ranks; returns the prefix.
  std::string import2(const std::string& stem) const {
    const std::string prefix = (dir_ / stem).string();
    const auto run =
        run_chorus_split({"import", "pytorch", "--et", data(stem + ".et.0.json"), data(stem + ".et.1.json"), "--kineto",
                          data(stem + ".kineto.0.json"), data(stem + ".kineto.1.json"), "--out", prefix});
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("measured timeline: " + prefix + ".measured.json"), std::string::npos) << run.out;
    return prefix;
  }

  static std::vector<std::string> sim2(const std::string& prefix, const std::string& measured) {
    return {"sim",    "--workload", prefix, "--topology", "ring:2", "--bandwidth",
            "50GB/s", "--latency",  "1us",  "--measured", measured};
  }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(MeasuredCli, HandMadeGpuRunBesideItsSimulation) {
  // kineto_gpu_2r (tests/data/pytorch/README.md), both ranks alike. Measured (kineto_path_test.cpp): span 152 us,
  // critical path compute 70, communication 60, launch 12, idle 10. The importer joins the kernels to the ET ops by
  // External id: aten::mm 40 us and 30 us (their GEMM kernels), c10d::allreduce_ 60 us (its NCCL kernel) of
  // 250000 float32 = 1,000,000 bytes.
  // Simulated on ring:2 at 50 GB/s and 1 us: the mm's replay 40 and 30 us; the all-reduce, chorus's ring with one
  // chunk, 2(N-1) = 2 steps of 1e6/2 bytes, each 1 us + 500000 B / 50 GB/s = 11 us: 22 us. Finish 40+30+22 = 92 us
  // on each rank. Error of the iteration: (92 - 152) / 152 = -39.47%.
  // Per op, over both ranks: aten::mm 4 instances, measured 2 x (40+30) = 140 us, simulated 140 us, error 0;
  // c10d::allreduce_ 2 instances, measured 120 us, simulated 44 us, error -76 us (-63.3%): first, furthest off.
  const std::string prefix = import2("kineto_gpu_2r");
  const auto run = run_chorus_split([&] {
    auto a = sim2(prefix, prefix + ".measured.json");
    a.push_back("--json");
    return a;
  }());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto m = nlohmann::json::parse(run.out)["measured"];
  EXPECT_DOUBLE_EQ(m["iteration"]["measured_ns"].get<double>(), 152000);
  EXPECT_NEAR(m["iteration"]["simulated_ns"].get<double>(), 92000, 0.01);
  EXPECT_NEAR(m["iteration"]["error_percent"].get<double>(), -39.4737, 0.001);
  ASSERT_EQ(m["per_rank"].size(), 2u);
  for (const auto& r : m["per_rank"]) {
    EXPECT_DOUBLE_EQ(r["measured_ns"].get<double>(), 152000);
    EXPECT_NEAR(r["simulated_ns"].get<double>(), 92000, 0.01);
    const auto& t = r["critical_path_totals"];
    EXPECT_DOUBLE_EQ(t["compute_ns"].get<double>(), 70000);
    EXPECT_DOUBLE_EQ(t["communication_ns"].get<double>(), 60000);
    EXPECT_DOUBLE_EQ(t["launch_ns"].get<double>(), 12000);
    EXPECT_DOUBLE_EQ(t["idle_ns"].get<double>(), 10000);
    EXPECT_EQ(r["critical_path_ops"][0]["name"], "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  }
  ASSERT_EQ(m["ops"].size(), 2u);
  const auto& ar = m["ops"][0];
  EXPECT_EQ(ar["name"], "c#d::allreduce_");  // digit runs read as '#', as the blame rows
  EXPECT_EQ(ar["kind"], "communication");
  EXPECT_EQ(ar["instances"], 2);
  EXPECT_DOUBLE_EQ(ar["measured_ns"].get<double>(), 120000);
  EXPECT_NEAR(ar["simulated_ns"].get<double>(), 44000, 0.01);
  EXPECT_NEAR(ar["error_ns"].get<double>(), -76000, 0.01);
  const auto& mm = m["ops"][1];
  EXPECT_EQ(mm["name"], "aten::mm");
  EXPECT_EQ(mm["instances"], 4);
  EXPECT_DOUBLE_EQ(mm["measured_ns"].get<double>(), 140000);
  EXPECT_NEAR(mm["simulated_ns"].get<double>(), 140000, 0.01);

  // The terminal report: the iteration, its error, the measured split, the op furthest off.
  const auto text = run_chorus_split(sim2(prefix, prefix + ".measured.json"));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("measured     152 us (longest rank) vs simulated 92 us: -39.5%"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("compute 70 us, communication 60 us, launch 12 us, idle 10 us"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("longest on it: ncclDevKernel_AllReduce_Sum_f32_RING_LL 60 us, sm90_gemm_a 40 us, "
                          "sm90_gemm_b 30 us"),
            std::string::npos)
      << text.out;
  // report.html: the per-rank and per-op tables.
  auto html_args = sim2(prefix, prefix + ".measured.json");
  const std::string out = (dir_ / "results").string();
  html_args.insert(html_args.end(), {"--out", out, "--report"});
  ASSERT_EQ(run_chorus_split(html_args).status, 0);
  std::ifstream html_file(out + "/report.html");
  const std::string html((std::istreambuf_iterator<char>(html_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("Measured beside simulated"), std::string::npos);
  EXPECT_NE(html.find("<td>c#d::allreduce_</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>-0.076</td>"), std::string::npos);  // simulated - measured, ms: 0.044 - 0.120
  EXPECT_NE(text.out.find("c#d::allreduce_                          communication         2       120000.000        "
                          "44000.000    -63.3%"),
            std::string::npos)
      << text.out;
}

TEST_F(MeasuredCli, RecordedDdpRunInvariants) {
  // ddp_mlp_2r: the legacy profiler's CPU-only trace (no kernels, no ids). Whatever the numbers, the measured
  // path tiles each rank's span, holds no launch time (nothing was launched), the simulated side is the run's own
  // finish, and the per-op rows hold every Chakra node with a measured time: their measured sum is the measured
  // file's.
  const std::string prefix = import2("ddp_mlp_2r");
  auto args = sim2(prefix, prefix + ".measured.json");
  args.push_back("--json");
  const auto run = run_chorus_split(args);
  ASSERT_EQ(run.status, 0) << run.err;
  const auto summary = nlohmann::json::parse(run.out);
  const auto& m = summary["measured"];
  std::ifstream in(prefix + ".measured.json");
  const auto file = nlohmann::json::parse(in);
  double file_nodes_ns = 0;
  for (size_t r = 0; r < 2; ++r) {
    const auto& pr = m["per_rank"][r];
    const auto& t = pr["critical_path_totals"];
    const double sum = t["compute_ns"].get<double>() + t["communication_ns"].get<double>() +
                       t["launch_ns"].get<double>() + t["idle_ns"].get<double>();
    EXPECT_GT(pr["measured_ns"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(sum, pr["measured_ns"].get<double>());
    EXPECT_DOUBLE_EQ(t["launch_ns"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(pr["simulated_ns"].get<double>(), summary["per_npu"][r]["finish_ns"].get<double>());
    for (const auto& node : file["ranks"][r]["nodes"])
      file_nodes_ns += node[1].get<double>();
  }
  EXPECT_DOUBLE_EQ(m["iteration"]["simulated_ns"].get<double>(), summary["finish_ns"].get<double>());
  double ops_ns = 0;
  for (const auto& op : m["ops"])
    ops_ns += op["measured_ns"].get<double>();
  EXPECT_GT(file_nodes_ns, 0);
  EXPECT_DOUBLE_EQ(ops_ns, file_nodes_ns);
}

TEST_F(MeasuredCli, BadMeasuredInput) {
  const std::string prefix = import2("kineto_gpu_2r");
  // Missing.
  const std::string missing = (dir_ / "none.measured.json").string();
  expect_input_error(run_chorus(sim2(prefix, missing), true), {missing});
  // Not a measured run (a Kineto trace).
  const std::string kineto = data("kineto_gpu_2r.kineto.0.json");
  expect_input_error(run_chorus(sim2(prefix, kineto), true), {kineto, "format", "chorus-measured"});
  // Another number of ranks than the workload's NPUs.
  std::ifstream in(prefix + ".measured.json");
  auto doc = nlohmann::json::parse(in);
  auto three = doc;
  three["ranks"].push_back(doc["ranks"][0]);
  const std::string three_path = write("three.json", three.dump());
  expect_input_error(run_chorus(sim2(prefix, three_path), true), {three_path, "ranks", "holds 3 ranks", "2 NPUs"});
  // A node the rank's trace does not hold: a measured file of another import.
  auto other = doc;
  other["ranks"][1]["nodes"][0][0] = 999;
  const std::string other_path = write("other.json", other.dump());
  expect_input_error(run_chorus(sim2(prefix, other_path), true), {other_path, "ranks[1].nodes", "node id 999"});
  // A negative duration.
  auto negative = doc;
  negative["ranks"][0]["span_ns"] = -5;
  const std::string negative_path = write("negative.json", negative.dump());
  expect_input_error(run_chorus(sim2(prefix, negative_path), true), {negative_path, "ranks[0].span_ns", "-5"});
}

TEST_F(MeasuredCli, KinetoOfAnotherRankOrWorld) {
  // Rank 1's Kineto trace given for rank 0, and a trace of a 4-rank run for a 2-rank import.
  const auto swapped = run_chorus(
      {"import", "pytorch", "--et", data("kineto_gpu_2r.et.0.json"), data("kineto_gpu_2r.et.1.json"), "--kineto",
       data("kineto_gpu_2r.kineto.1.json"), data("kineto_gpu_2r.kineto.0.json"), "--out", (dir_ / "x").string()},
      true);
  expect_input_error(swapped, {"kineto_gpu_2r.kineto.1.json", "distributedInfo.rank", "is 1", "rank 0"});
  std::ifstream in(data("kineto_gpu_2r.kineto.0.json"));
  auto doc = nlohmann::json::parse(in);
  doc["distributedInfo"]["world_size"] = 4;
  const std::string world4 = write("world4.json", doc.dump());
  const auto world =
      run_chorus({"import", "pytorch", "--et", data("kineto_gpu_2r.et.0.json"), data("kineto_gpu_2r.et.1.json"),
                  "--kineto", world4, data("kineto_gpu_2r.kineto.1.json"), "--out", (dir_ / "y").string()},
                 true);
  expect_input_error(world, {world4, "distributedInfo.world_size", "is 4", "2 execution traces"});
  // A Kineto trace that is not there.
  const std::string absent = (dir_ / "absent.kineto.json").string();
  expect_input_error(
      run_chorus({"import", "pytorch", "--et", data("kineto_gpu_2r.et.0.json"), data("kineto_gpu_2r.et.1.json"),
                  "--kineto", data("kineto_gpu_2r.kineto.0.json"), absent, "--out", (dir_ / "z").string()},
                 true),
      {absent});
  // Kernels of one operator that sum past what a node may hold (10^12 us): two of 6 x 10^11 us for aten::mm.
  auto huge = nlohmann::json::parse(std::ifstream(data("kineto_gpu_2r.kineto.0.json")));
  for (auto& e : huge["traceEvents"])
    if (e.value("name", "") == "sm90_gemm_a")
      e["dur"] = 600'000'000'000;
  auto second = huge["traceEvents"][7];
  ASSERT_EQ(second["name"], "sm90_gemm_a");
  huge["traceEvents"].push_back(second);
  const std::string huge_path = write("huge.json", huge.dump());
  expect_input_error(
      run_chorus({"import", "pytorch", "--et", data("kineto_gpu_2r.et.0.json"), data("kineto_gpu_2r.et.1.json"),
                  "--kineto", huge_path, data("kineto_gpu_2r.kineto.1.json"), "--out", (dir_ / "h").string()},
                 true),
      {huge_path, "traceEvents", "sum to 1200000000000 us"});
  // One Kineto trace for two ranks.
  expect_input_error(run_chorus({"import", "pytorch", "--et", data("kineto_gpu_2r.et.0.json"),
                                 data("kineto_gpu_2r.et.1.json"), "--kineto", data("kineto_gpu_2r.kineto.0.json")},
                                true),
                     {"--kineto", "1 files for 2 execution traces"});
}

}  // namespace
}  // namespace chorus
