// chorus codesign on the command line: the JSON fields scripts read, and bad input as one line naming the file or
// option and the field, exit status 2.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/llm/distributed.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/input_error.hpp"

namespace {

namespace fs = std::filesystem;
using chorus::testing_support::expect_input_error;
using chorus::testing_support::run_chorus;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("chorus_codesign_cli_" + name);
  std::ofstream(path) << text;
  return path.string();
}

const std::string kModel = std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama2-7b.json";

constexpr const char* kTemplate = R"(dimensions:
  - name: nvlink
    size: 8
    bandwidth_GBps: 450
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [25, 50, 100], default: 50}
)";
// GPUs $10,000; scale-out: 1 port per 50 GB/s, $1,000 NIC + $500 switch port + $200 cable; 16 GPUs on one radix-64
// switch (one level). Networks: 25 and 50 GB/s: 16 x (10,000 + 1,700) = $187,200; 100 GB/s: 16 x 13,400 = $214,400.
constexpr const char* kPrices = R"(gpu_dollars: 10000
dimensions:
  nvlink: {node_gpus: 8}
  scale-out: {port_GBps: 50, nic_port_dollars: 1000, switch_port_dollars: 500, cable_dollars: 200}
)";

std::vector<std::string> args(const std::string& network, const std::string& cost) {
  return {"codesign",  "--model",   kModel,  "--gpus", "16", "--max-batch", "32", "--machine",
          "h100-80gb", "--network", network, "--cost", cost, "--threads",   "2"};
}

TEST(CodesignCli, JsonHasBestTopParetoAndCounts) {
  std::vector<std::string> a = args(write_file("t.yml", kTemplate), write_file("c.yml", kPrices));
  for (const char* extra : {"--budget", "dollars=2e5", "--top", "3", "--json"})
    a.emplace_back(extra);
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  // Under $200,000 only the 25 and 50 GB/s networks fit ($187,200 each); 100 GB/s ($214,400) is over.
  EXPECT_EQ(j["networks"], 3);
  EXPECT_EQ(j["networks_over_budget"], 1);
  EXPECT_DOUBLE_EQ(j["best"]["cost"].get<double>(), 187200.0);
  EXPECT_EQ(j["best"]["network"]["dimensions"][1]["bandwidth_GBps"], 50.0);  // the faster at the same price
  EXPECT_EQ(j["top"].size(), 3u);
  EXPECT_EQ(j["best"]["time_s"], j["top"][0]["time_s"]);
  // tokens/s per $: batch 32 x seq 4096 / time / cost
  const double time_s = j["best"]["time_s"].get<double>();
  EXPECT_NEAR(j["best"]["tokens_per_s_per_dollar"].get<double>(), 32.0 * 4096 / time_s / 187200.0, 1e-12);
  // One price, so the front is the fastest design at $187,200.
  ASSERT_EQ(j["pareto"].size(), 1u);
  EXPECT_EQ(j["pareto"][0]["cost"], 187200.0);
  EXPECT_EQ(j["pareto"][0]["time_s"], j["best"]["time_s"]);
  EXPECT_GT(j["evaluated"].get<int64_t>(), 0);
  EXPECT_GE(j["pruned"].get<int64_t>(), 0);
  for (const char* key : {"tensor_par", "pipeline_par", "data_par", "microbatch_size"})
    EXPECT_TRUE(j["best"]["execution"].contains(key)) << key;
}

TEST(CodesignCli, VerifySimSimulatesTheTopDesigns) {
  // --verify sim runs each top design through llm run --engine sim on its own network; the two engines agree
  // within 15 % on this small job (docs/llm.md: within 5 % on the compare jobs, TP overlap aside).
  std::vector<std::string> a = args(write_file("tv.yml", kTemplate), write_file("cv.yml", kPrices));
  for (const char* extra : {"--budget", "dollars=2e5", "--top", "2", "--json", "--verify", "sim"})
    a.emplace_back(extra);
  const std::string report = (fs::temp_directory_path() / "chorus_codesign_verify.html").string();
  a.insert(a.end(), {"--report", report});
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["top"].size(), 2u);
  for (const auto& d : j["top"]) {
    ASSERT_TRUE(d["sim_time_s"].is_number()) << d.dump();
    EXPECT_NEAR(d["sim_time_s"].get<double>() / d["time_s"].get<double>(), 1.0, 0.15);
  }
  EXPECT_EQ(j["best"]["sim_time_s"], j["top"][0]["sim_time_s"]);
  std::ifstream in(report);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("top designs, simulated"), std::string::npos);
  EXPECT_NE(html.find("simulated s"), std::string::npos);
  fs::remove(report);
  std::vector<std::string> bad = args(write_file("tv.yml", kTemplate), write_file("cv.yml", kPrices));
  for (const char* extra : {"--verify", "simulator"})
    bad.emplace_back(extra);
  expect_input_error(run_chorus(bad, true), {"--verify", "expected sim"});
}

TEST(CodesignCli, TotalBandwidthBudgetAndReport) {
  // total-bw=500GB/s: 450 + 25 and 450 + 50 fit, 450 + 100 = 550 GB/s per GPU does not.
  std::vector<std::string> a = args(write_file("t8.yml", kTemplate), write_file("c8.yml", kPrices));
  const std::string report = (fs::temp_directory_path() / "chorus_codesign_cli_report.html").string();
  for (const std::string& extra : {std::string("--budget"), std::string("total-bw=500GB/s"), std::string("--top"),
                                   std::string("1"), std::string("--report"), report, std::string("--json")})
    a.push_back(extra);
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["networks_over_budget"], 1);
  EXPECT_DOUBLE_EQ(j["best"]["cost"].get<double>(), 187200.0);
  std::ifstream in(report);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("187200"), std::string::npos);  // the front's one point, in the table
}

TEST(CodesignCli, TemplateWithNothingFree) {
  const std::string t = write_file("fixed.yml", R"(dimensions:
  - {name: nvlink, size: 8, bandwidth_GBps: 450}
  - {name: scale-out, size: all, bandwidth_GBps: 50}
)");
  expect_input_error(run_chorus(args(t, write_file("c2.yml", kPrices)), true),
                     {"fixed.yml", "dimensions", "nothing is free"});
}

TEST(CodesignCli, BudgetBelowCheapestNetwork) {
  std::vector<std::string> a = args(write_file("t3.yml", kTemplate), write_file("c3.yml", kPrices));
  a.emplace_back("--budget");
  a.emplace_back("dollars=1e5");
  expect_input_error(run_chorus(a, true), {"--budget", "dollars=1e+05", "cheapest costs $1.872e+05"});
}

TEST(CodesignCli, GpusTheTemplateCannotHold) {
  const std::string t = write_file("small_pod.yml", R"(dimensions:
  - {name: nvlink, size: 8, bandwidth_GBps: 450}
  - {name: scale-out, size: 8, bandwidth_GBps: {values: [25, 50], default: 50}}
)");
  expect_input_error(run_chorus(args(t, write_file("c4.yml", kPrices)), true),
                     {"small_pod.yml", "dimensions[1].size", "16 GPUs"});
}

TEST(CodesignCli, UnknownObjective) {
  std::vector<std::string> a = args(write_file("t5.yml", kTemplate), write_file("c5.yml", kPrices));
  a.emplace_back("--objective");
  a.emplace_back("fastest");
  expect_input_error(run_chorus(a, true), {"--objective", "fastest"});
}

TEST(CodesignCli, CostFileMissingADimension) {
  const std::string c = write_file("c6.yml", "gpu_dollars: 1\ndimensions:\n  nvlink: {node_gpus: 8}\n");
  expect_input_error(run_chorus(args(write_file("t6.yml", kTemplate), c), true),
                     {"c6.yml", "dimensions.scale-out", "missing"});
}

TEST(CodesignCli, CostObjectiveNeedsTimeTarget) {
  std::vector<std::string> a = args(write_file("t7.yml", kTemplate), write_file("c7.yml", kPrices));
  a.emplace_back("--objective");
  a.emplace_back("cost");
  expect_input_error(run_chorus(a, true), {"--time-target"});
}

TEST(CodesignCli, ExecThatDisagreesWithGpusOrBatch) {
  // The shipped Llama 3 70B execution trains 512 sequences on 1,024 GPUs; --max-batch 1024 disagrees.
  const std::vector<std::string> a = {"codesign",
                                      "--model",
                                      std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama3-70b.json",
                                      "--gpus",
                                      "1024",
                                      "--max-batch",
                                      "1024",
                                      "--network",
                                      write_file("t11.yml", kTemplate),
                                      "--cost",
                                      write_file("c11.yml", kPrices),
                                      "--exec",
                                      std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama3-70b_exec.json"};
  expect_input_error(run_chorus(a, true), {"--exec", "batch_size 512", "--max-batch"});
}

TEST(CodesignCli, TimeTargetNoDesignMeets) {
  std::vector<std::string> a = args(write_file("t9.yml", kTemplate), write_file("c9.yml", kPrices));
  for (const char* extra : {"--objective", "cost", "--time-target", "1ms"})
    a.emplace_back(extra);
  expect_input_error(run_chorus(a, true), {"--time-target", "no design within the budget"});
}

// Under mpirun each network's planner search is split over the ranks and merged on rank 0: the same answer.
TEST(CodesignCli, MpirunSplitGivesTheSameAnswer) {
  if (!chorus::llm::ProcessGroup::mpi_available())
    GTEST_SKIP() << "built without MPI";
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mpirun";
  std::vector<std::string> a = args(write_file("t10.yml", kTemplate), write_file("c10.yml", kPrices));
  a.back() = "1";  // --threads 1
  for (const char* extra : {"--top", "4", "--json"})
    a.emplace_back(extra);
  const auto single = run_chorus(a, false);
  ASSERT_EQ(single.status, 0) << single.out;
  // Under AddressSanitizer the ranks keep every check but leak detection (Open MPI's MPI_Init allocations are never
  // freed), as tests/llm/search_test.cpp does.
#if defined(__SANITIZE_ADDRESS__)
  std::string command = "timeout -k 5 60 mpirun -x ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 ";
#else
  std::string command = "timeout -k 5 60 mpirun ";
#endif
  command += "--allow-run-as-root --oversubscribe -np 2 ";
  command += chorus::testing_support::shell_quote(CHORUS_BINARY);
  for (const std::string& arg : a) {
    command += ' ';
    command += chorus::testing_support::shell_quote(arg);
  }
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    out.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << out;
  const nlohmann::json x = nlohmann::json::parse(single.out), y = nlohmann::json::parse(out);
  EXPECT_EQ(x["evaluated"], y["evaluated"]);
  EXPECT_EQ(x["pareto"], y["pareto"]);
  ASSERT_EQ(x["top"].size(), y["top"].size());
  for (size_t i = 0; i < x["top"].size(); ++i) {
    EXPECT_EQ(x["top"][i]["execution"], y["top"][i]["execution"]) << i;
    EXPECT_EQ(x["top"][i]["network"], y["top"][i]["network"]) << i;
    EXPECT_EQ(x["top"][i]["time_s"], y["top"][i]["time_s"]) << i;
  }
}

TEST(CodesignCli, CompareNetoptInTheJsonAndText) {
  // NVLink fixed at 450 GB/s, the scale-out 25 to 100 GB/s under $200,000: netopt may spend $200,000 - 16 x $10,000 =
  // $40,000 on scale-out ports at $1,700 / 50 GB/s, 16 x 34 $ per GB/s, so at most 40,000 / 544 = 73.5 GB/s, one
  // whole port of 50 GB/s.
  std::vector<std::string> a = args(write_file("tn.yml", kTemplate), write_file("cn.yml", kPrices));
  for (const char* extra : {"--budget", "dollars=2e5", "--top", "3", "--compare-netopt"})
    a.emplace_back(extra);
  const auto text = run_chorus(a, false);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("netopt (default parallelism tp"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("joint optimum"), std::string::npos) << text.out;
  a.emplace_back("--json");
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  const nlohmann::json& n = j["netopt"];
  EXPECT_NEAR(n["netopt_bandwidth_gbps"][0].get<double>(), 450.0, 1e-3);
  EXPECT_LE(n["netopt_bandwidth_gbps"][1].get<double>(), 40000.0 / 544 * (1 + 1e-6));
  EXPECT_EQ(n["bandwidth_gbps"][1].get<double>(), 50.0);
  EXPECT_EQ(n["cost"].get<double>(), 187200.0);
  EXPECT_TRUE(n["within_budget"].get<bool>());
  EXPECT_TRUE(n["execution"].contains("tensor_par"));
  EXPECT_LE(j["best"]["time_s"].get<double>(), n["time_s"].get<double>());
}

TEST(CodesignCli, CompareNetoptNeedsTheTimeObjective) {
  std::vector<std::string> a = args(write_file("tn2.yml", kTemplate), write_file("cn2.yml", kPrices));
  for (const char* extra : {"--objective", "time-x-cost", "--compare-netopt"})
    a.emplace_back(extra);
  expect_input_error(run_chorus(a, true), {"--compare-netopt", "time-x-cost"});
}

}  // namespace

// Collective algorithms per dimension (docs/codesign.md): nccl and synth run; --verify sim passes NCCL through for
// a network of two nccl dimensions and says what it did not carry over otherwise.
constexpr const char* kAlgorithms = R"(dimensions:
  - name: nvlink
    size: 8
    bandwidth_GBps: 450
    algorithms: [nccl, synth]
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [25, 50], default: 50}
    algorithms: [nccl]
)";

TEST(CodesignCli, NcclAndSynthDimensionsAndTheirVerification) {
  std::vector<std::string> a = args(write_file("ta.yml", kAlgorithms), write_file("ca.yml", kPrices));
  for (const char* extra : {"--top", "10", "--json", "--verify", "sim"})
    a.emplace_back(extra);
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  bool nccl_seen = false, synth_seen = false;
  for (const auto& d : j["top"]) {
    const std::string nv = d["network"]["dimensions"][0]["algorithm"];
    ASSERT_TRUE(d["sim_time_s"].is_number()) << d.dump();
    if (nv == "nccl") {
      nccl_seen = true;
      EXPECT_EQ(d["sim_collectives"], "nccl");
      EXPECT_FALSE(d.contains("sim_note"));
    } else {
      synth_seen = true;
      EXPECT_EQ(nv, "synth");
      EXPECT_EQ(d["sim_collectives"], "simulated");
      EXPECT_NE(d["sim_note"].get<std::string>().find("nvlink synth"), std::string::npos) << d.dump();
    }
  }
  EXPECT_TRUE(nccl_seen && synth_seen);
}

TEST(CodesignCli, EverySynthDimensionVerifiesWithSynthesizedCollectives) {
  // 16 GPUs, both dimensions synth: --verify sim runs each group's collective by a schedule synthesized on the
  // design's network (llm run --engine sim --collectives synth), and has nothing left to say it did not carry over.
  const std::string t = write_file("tsynth.yml", R"(dimensions:
  - {name: nvlink, size: 8, bandwidth_GBps: 450, algorithms: [synth]}
  - {name: scale-out, size: all, bandwidth_GBps: {values: [25, 50], default: 50}, algorithms: [synth]}
)");
  std::vector<std::string> a = args(t, write_file("csynth.yml", kPrices));
  for (const char* extra : {"--top", "2", "--json", "--verify", "sim"})
    a.emplace_back(extra);
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  ASSERT_FALSE(j["top"].empty());
  for (const auto& d : j["top"]) {
    ASSERT_TRUE(d["sim_time_s"].is_number()) << d.dump();
    EXPECT_EQ(d["sim_collectives"], "synth");
    EXPECT_FALSE(d.contains("sim_note")) << d.dump();
    EXPECT_NEAR(d["sim_time_s"].get<double>() / d["time_s"].get<double>(), 1.0, 0.15) << d.dump();
  }
}

TEST(CodesignCli, SynthOnTooLargeADomain) {
  // 64 GPUs: an NVLink domain of 64 may not run synth, nor a scale-out dimension spanning all 64.
  const std::string nv = write_file("synth64.yml", R"(dimensions:
  - {name: nvlink, size: {values: [8, 64], default: 8}, bandwidth_GBps: 450, algorithms: [ring, synth]}
  - {name: scale-out, size: all, bandwidth_GBps: 50}
)");
  const std::string so = write_file("synth_all.yml", R"(dimensions:
  - {name: nvlink, size: 8, bandwidth_GBps: 450}
  - {name: scale-out, size: all, bandwidth_GBps: {values: [25, 50], default: 50}, algorithms: [ring, synth]}
)");
  for (const auto& [t, field] :
       {std::pair(nv, "dimensions[0].algorithms"), std::pair(so, "dimensions[1].algorithms")}) {
    std::vector<std::string> a = args(t, write_file("c9.yml", kPrices));
    a[4] = "64";  // --gpus
    a[6] = "64";  // --max-batch
    expect_input_error(run_chorus(a, true), {t, field, "synth on a domain of 64 GPUs", "at most 32"});
  }
}

TEST(CodesignCli, NcclNeedsAMachinePreset) {
  std::vector<std::string> a = args(write_file("tn.yml", kAlgorithms), write_file("cn.yml", kPrices));
  a[8] = std::string(CHORUS_SOURCE_DIR) + "/examples/llm/h100_80g.json";  // --machine: a system file
  a.insert(a.end(), {"--datatype", "float16"});
  expect_input_error(run_chorus(a, true), {"tn.yml", "dimensions[0].algorithms", "nccl needs --machine"});
}

TEST(CodesignCli, UnknownAlgorithm) {
  const std::string t = write_file("tu.yml", R"(dimensions:
  - {name: nvlink, size: 8, bandwidth_GBps: 450, algorithms: [ring, msccl]}
  - {name: scale-out, size: all, bandwidth_GBps: 50}
)");
  expect_input_error(run_chorus(args(t, write_file("cu.yml", kPrices)), true),
                     {"tu.yml", "dimensions[0].algorithms[1]", "'msccl'", "ring, switch-reduce, nccl or synth"});
}

TEST(CodesignCli, RefineBandwidthInTheJson) {
  // total-bw=500GB/s with NVLink fixed at 450: the scale-out may take 25 to 50 GB/s; each refined design stays within
  // that, is never slower than its grid design, and is printed in the text as well.
  std::vector<std::string> a = args(write_file("tr.yml", kTemplate), write_file("cr.yml", kPrices));
  for (const char* extra : {"--budget", "total-bw=500GB/s", "--top", "3", "--refine-bandwidth"})
    a.emplace_back(extra);
  const auto text = run_chorus(a, false);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("refined: nvlink 450.0GB/s | scale-out "), std::string::npos) << text.out;
  a.emplace_back("--json");
  const auto run = run_chorus(a, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  ASSERT_FALSE(j["top"].empty());
  for (const auto& d : j["top"]) {
    const nlohmann::json& r = d["refined"];
    EXPECT_EQ(r["bandwidth_GBps"][0].get<double>(), 450.0);
    EXPECT_GE(r["bandwidth_GBps"][1].get<double>(), 25.0);
    EXPECT_LE(r["bandwidth_GBps"][1].get<double>(), 50.0 * (1 + 1e-12));
    EXPECT_LE(r["time_s"].get<double>(), d["time_s"].get<double>());
    EXPECT_GT(r["evaluations"].get<int>(), 0);
  }
  EXPECT_EQ(j["best"]["refined"], j["top"][0]["refined"]);
}

TEST(CodesignCli, NcclOnAFullMeshLargerThanItsNode) {
  // MI300X's Infinity Fabric is a full mesh of 8 (one link per pair): a 16-GPU domain has no NCCL (RCCL) model.
  const std::string t = write_file("mesh16.yml", R"(dimensions:
  - {name: xgmi, size: {values: [8, 16], default: 8}, bandwidth_GBps: 448, algorithms: [nccl]}
  - {name: scale-out, size: all, bandwidth_GBps: 50}
)");
  const std::string c = write_file("cm.yml", R"(gpu_dollars: 10000
dimensions:
  xgmi: {node_gpus: 8}
  scale-out: {port_GBps: 50, nic_port_dollars: 1000, switch_port_dollars: 500, cable_dollars: 200}
)");
  std::vector<std::string> a = args(t, c);
  a[8] = "mi300x";
  expect_input_error(run_chorus(a, true),
                     {"mesh16.yml", "dimensions[0].algorithms", "a domain of 16 GPUs", "full mesh joins at most 8"});
}
