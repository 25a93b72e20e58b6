// `chorus llm run --engine sim` and `llm validate --engine sim`: the simulator engine against the planner on the
// same job (the floor: within 5% on examples/llm/compare), its compute equal to the planner's by
// construction, the planner's network tiers as a topology, the JSON keys scripts read, and one-line errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm_engine/engine_validation.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/input_error.hpp"

namespace chorus {
namespace {

using testing_support::expect_input_error;
using testing_support::run_chorus;

const std::string kSource = CHORUS_SOURCE_DIR;

struct Job {
  const char* model;
  const char* exec;
};

std::vector<std::string> run_args(const Job& job, bool sim) {
  std::vector<std::string> args{"llm",      "run",       "--model", kSource + "/" + job.model,
                                "--system", "a100-80gb", "--exec",  kSource + "/" + job.exec,
                                "--json"};
  if (sim) {
    args.push_back("--engine");
    args.push_back("sim");
  }
  return args;
}

TEST(SimEngine, WithinFivePercentOfThePlannerOnTheCompareJobs) {
  for (const Job& job :
       {Job{"examples/llm/llama2-7b.json", "examples/llm/compare/dense_tp4_pp2_dp2.json"},
        Job{"examples/llm/llama2-7b.json", "examples/llm/compare/cp2_tp2_pp2_dp2.json"},
        Job{"examples/llm/llama2-7b.json", "examples/llm/compare/zero3_tp2_dp8.json"},
        Job{"examples/llm/compare/mixtral-8x7b-s1024.json", "examples/llm/compare/moe_pp4_dp8_ep8.json"}}) {
    const auto planner = run_chorus(run_args(job, false), false);
    const auto sim = run_chorus(run_args(job, true), false);
    ASSERT_EQ(planner.status, 0) << planner.out;
    ASSERT_EQ(sim.status, 0) << sim.out;
    const auto p = nlohmann::json::parse(planner.out);
    const auto s = nlohmann::json::parse(sim.out);
    const double planner_s = p["total_time"].get<double>();
    EXPECT_EQ(s["engine"], "sim");
    EXPECT_DOUBLE_EQ(s["planner_total_time"].get<double>(), planner_s) << job.exec;
    const double sim_s = s["sim_finish_ns"].get<double>() / 1e9;
    EXPECT_NEAR(sim_s / planner_s, 1.0, 0.05) << job.exec;
    // Part 3's physical runtime: no collective finishes faster than the links its group uses allow.
    EXPECT_EQ(s["collectives_below_bound"], 0) << job.exec;
    EXPECT_DOUBLE_EQ(s["total_time"].get<double>(), sim_s);
    // Throughput from the simulated time: batch x seq / GPUs / time.
    const auto model = nlohmann::json::parse(std::ifstream(kSource + "/" + job.model));
    const double tokens = s["execution"]["batch_size"].get<double>() * model["seq_size"].get<double>() /
                          s["execution"]["num_procs"].get<double>() / sim_s;
    EXPECT_NEAR(s["tokens_per_s_per_gpu"].get<double>(), tokens, 1e-9 * tokens);
    // Compute is the planner's by construction: forward + backward + recompute + head + optimizer (the nodes are
    // whole microseconds, so within 0.1%).
    const double compute = p["fw_time"].get<double>() + p["bw_time"].get<double>() + p["recompute_time"].get<double>() +
                           p["optim_step_time"].get<double>() + p["head_time"].get<double>();
    const auto& rows = s["components"];
    ASSERT_FALSE(rows.empty());
    EXPECT_NEAR(rows[0]["sim_s"].get<double>() / compute, 1.0, 1e-3) << job.exec;
    EXPECT_NEAR(rows[0]["planner_s"].get<double>(), compute, 1e-9 * compute);
    EXPECT_EQ(rows.back()["name"], "iteration");
    EXPECT_DOUBLE_EQ(rows.back()["sim_s"].get<double>(), sim_s);
  }
}

TEST(SimEngine, PlannerTiersBecomeSwitchDimensions) {
  // h100-80gb: 8 GPUs per NVLink domain, the rest on the scale-out tier; 1,024 GPUs are switch:8 x switch:128.
  const llm::System sys = llm::resolve_system("h100-80gb");
  const Topology t = planner_topology(sys, 1024, "h100-80gb");
  EXPECT_EQ(t.npu_count(), 1024u);
  const llm::NetworkTier& nvlink = sys.networks[0];
  // NPU 0's first link is its NVLink port: the tier's bandwidth x efficiency, latency / 2(8 - 1).
  const LinkId first = t.out_links(NodeId{0})[0];
  EXPECT_NEAR(t.link_bandwidth(first).bytes_per_second(), nvlink.bytes_per_second * nvlink.efficiency, 1);
  EXPECT_NEAR(t.link_latency(first).seconds(), nvlink.latency_s / 14, 1e-12);
  EXPECT_THROW(planner_topology(sys, 12, "h100-80gb"), Error);  // 12 GPUs are no whole 8-GPU domains
}

TEST(SimEngine, ValidationRunsBothEnginesWithoutFitting) {
  // Korthikanti et al. 2022, Table 5, 22B with full recompute (8 GPUs, TP 8): 1.42 s measured.
  const llm::System sys = llm::resolve_system("a100-80gb");
  std::vector<EngineValidationRun> runs = table5_runs(sys);
  runs.resize(1);
  ASSERT_EQ(runs[0].name, "22B full");
  const EngineValidationReport r = validate_engines(runs, sys, "a100-80gb");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.rows[0].skipped.empty()) << r.rows[0].skipped;
  EXPECT_DOUBLE_EQ(r.rows[0].measured_s, 1.42);
  EXPECT_NEAR(r.rows[0].sim_s / r.rows[0].planner_s, 1.0, 0.05);
  EXPECT_NEAR(r.sim_mean_abs_error, std::fabs(1 - r.rows[0].sim_s / 1.42), 1e-12);
}

TEST(SimEngine, EnginesWithinFivePercentOnTheMeasuredFsdpAndNemoRuns) {
  // Issue #25's floor on the shipped (calibrated) presets: the two engines within 5 % of each other on every run
  // they both run. torchtitan's ZeRO-3 over 64 A100s (a data-parallel group of 8 per node: both engines run it
  // inside the node first), NeMo's 9 DGX-H100 runs (interleaved pipelines with overlapped sends, DP groups sharing
  // nodes at TP 2 and 4), Llama 3 405B on 8,192 and 16,384 H100s, the Megatron-LM README's A100 runs and the two
  // Qwen3 MoE runs (DeepSeek-V3's ep_overlap is refused by the simulator), and Llama 3 405B on the uncalibrated
  // datasheet preset, where the engines once stood 7.1 % apart (the simulator's ZeRO-2 reductions hid behind the
  // forwards and the bubble, the planner's only behind the backwards; its pipeline sends left the stream, the
  // planner's did not). docs/llm.md reports 0.3, 2.9, 0.6, 0.5, 0.5 and 0.5 % at most.
  for (const auto& [csv, system] :
       {std::pair{"torchtitan_fsdp2_a100_runs.csv", "a100-80gb"}, std::pair{"nemo2407_h100_runs.csv", "h100-80gb"},
        std::pair{"llama3_405b_table4_runs.csv", "h100-80gb"}, std::pair{"megatron_readme_runs.csv", "a100-80gb"},
        std::pair{"mbridge_h100_moe_runs.csv", "h100-80gb"},
        std::pair{"llama3_405b_table4_runs.csv", "h100-80gb-datasheet"}}) {
    const llm::System sys = llm::resolve_system(system);
    const auto runs = llm::read_measured_runs(kSource + "/validation/llm/" + csv, sys);
    const EngineValidationReport r = validate_engines(runs, sys, system);
    ASSERT_EQ(r.rows.size(), runs.size());
    for (const EngineValidationRow& row : r.rows) {
      if (row.name.starts_with("DeepSeek-V3")) {
        EXPECT_NE(row.skipped.find("ep_overlap"), std::string::npos) << row.skipped;
        continue;
      }
      ASSERT_TRUE(row.skipped.empty()) << row.name << ": " << row.skipped;
      EXPECT_NEAR(row.sim_s / row.planner_s, 1.0, 0.05) << row.name;
    }
    EXPECT_LE(r.sim_vs_planner_max, 0.05) << csv;
  }
}

TEST(SimEngine, ValidationSummarisesEachSourceApart) {
  // Two runs under two source names: each source's mean is its one run's error; the overall mean is their mean.
  const llm::System sys = llm::resolve_system("a100-80gb");
  std::vector<EngineValidationRun> runs = table5_runs(sys);
  runs.resize(1);
  runs.push_back(runs[0]);
  runs[1].source = "again";
  runs[1].measured_s = 2 * runs[0].measured_s;
  const EngineValidationReport r = validate_engines(runs, sys, "a100-80gb");
  ASSERT_EQ(r.sources.size(), 2u);
  EXPECT_EQ(r.sources[0].source, runs[0].source);
  EXPECT_EQ(r.sources[1].source, "again");
  const double sim_s = r.rows[0].sim_s;
  EXPECT_NEAR(r.sources[0].sim_mean_abs_error, std::fabs(1 - sim_s / runs[0].measured_s), 1e-12);
  EXPECT_NEAR(r.sources[1].sim_mean_abs_error, std::fabs(1 - sim_s / runs[1].measured_s), 1e-12);
  EXPECT_NEAR(r.sim_mean_abs_error, (r.sources[0].sim_mean_abs_error + r.sources[1].sim_mean_abs_error) / 2, 1e-12);
  EXPECT_EQ(r.sources[0].runs, 1u);
  const std::string table = engine_validation_table(r);
  EXPECT_NE(table.find("again                1 run: mean |error|"), std::string::npos) << table;
}

TEST(SimEngine, ValidationRunsOnlyTheMeasuredRunsGiven) {
  // With --measured, Table 5 (A100) is not added: one NeMo H100 row in, one source of one run out (before, the 8
  // Table 5 runs came too, and on an H100 system their errors entered the overall mean).
  namespace fs = std::filesystem;
  const fs::path csv = fs::temp_directory_path() / "chorus-validate-one-run.csv";
  {
    std::ofstream out(csv);
    out << "source,name,model,exec,metric,value\n"
        << "nemo-24.07-h100,LLAMA3-8B 8 GPUs," << kSource << "/validation/llm/models/llama3-8B.json," << kSource
        << "/validation/llm/execs/nemo-llama3-8B_8.json,tokens_per_s_per_gpu,12036\n";
  }
  const auto run = run_chorus(
      {"llm", "validate", "--engine", "sim", "--system", "h100-80gb", "--measured", csv.string(), "--json"}, false);
  fs::remove(csv);
  ASSERT_EQ(run.status, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["sources"].size(), 1u) << run.out;
  EXPECT_EQ(j["sources"][0]["source"], "nemo-24.07-h100");
  EXPECT_EQ(j["sources"][0]["runs"], 1);
}

TEST(SimEngine, GeneratedTracesAreWhatTheEngineSimulates) {
  // generate llm --exec writes the engine's traces; chorus sim of them on the planner's tiers as a network file
  // (the same switches, bandwidths and latencies) with the engine's settings finishes when the engine does.
  namespace fs = std::filesystem;
  const Job dense{"examples/llm/llama2-7b.json", "examples/llm/compare/dense_tp4_pp2_dp2.json"};
  const fs::path dir = fs::temp_directory_path() / "chorus-engine-traces";
  fs::remove_all(dir);
  const auto gen = run_chorus({"generate", "llm", "--model", kSource + "/" + dense.model, "--system", "a100-80gb",
                               "--exec", kSource + "/" + dense.exec, "--symmetric", "--out", dir.string()},
                              false);
  ASSERT_EQ(gen.status, 0) << gen.out;
  const llm::System sys = llm::resolve_system("a100-80gb");
  const double gib = 1073741824.0;
  const fs::path net = fs::temp_directory_path() / "chorus-engine-tiers.yml";
  std::ofstream(net) << fmt::format(
      "topology: [ Switch, Switch ]\nnpus_count: [ 8, 2 ]\nbandwidth: [ {:.12f}, {:.12f} ]\nlatency: [ {:.9f}, {:.9f} "
      "]\n",
      sys.networks[0].bytes_per_second * sys.networks[0].efficiency / gib,
      sys.networks[1].bytes_per_second * sys.networks[1].efficiency / gib, sys.networks[0].latency_s / 14 * 1e9,
      sys.networks[1].latency_s / 2 * 1e9);
  const auto sim = run_chorus({"sim", "--workload", dir.string(), "--network", net.string(), "--model", "flow",
                               "--no-resource-limits", "--contention", "--json"},
                              false);
  ASSERT_EQ(sim.status, 0) << sim.out;
  const auto engine = run_chorus(run_args(dense, true), false);
  ASSERT_EQ(engine.status, 0) << engine.out;
  const double simulated = nlohmann::json::parse(sim.out)["finish_ns"].get<double>();
  EXPECT_NEAR(simulated / nlohmann::json::parse(engine.out)["sim_finish_ns"].get<double>(), 1.0, 1e-6);
  fs::remove_all(dir);
  fs::remove(net);
}

TEST(SimEngine, NcclCollectivesChangeOnlyTheCommunication) {
  // The dense job (16 GPUs: two DGX A100 nodes) with every collective timed by NCCL's cost model of dgx-a100: the
  // compute nodes are the same, so the compute row is the simulated run's to the nanosecond; the JSON names the
  // timing, and the iteration still covers the compute.
  const Job job{"examples/llm/llama2-7b.json", "examples/llm/compare/dense_tp4_pp2_dp2.json"};
  const auto simulated = run_chorus(run_args(job, true), false);
  auto args = run_args(job, true);
  args.insert(args.end(), {"--collectives", "nccl", "--machine", "dgx-a100"});
  const auto nccl = run_chorus(args, false);
  ASSERT_EQ(simulated.status, 0) << simulated.out;
  ASSERT_EQ(nccl.status, 0) << nccl.out;
  const auto a = nlohmann::json::parse(simulated.out);
  const auto b = nlohmann::json::parse(nccl.out);
  EXPECT_EQ(a["collectives"], "simulated");
  EXPECT_EQ(b["collectives"], "nccl:dgx-a100");
  EXPECT_NEAR(b["components"][0]["sim_s"].get<double>(), a["components"][0]["sim_s"].get<double>(), 1e-9);
  EXPECT_GE(b["total_time"].get<double>(), b["components"][0]["sim_s"].get<double>());
  EXPECT_NE(b["total_time"].get<double>(), a["total_time"].get<double>());
  // 16 GPUs are not whole nodes of a 72-GPU NVL72 rack; nccl needs a machine; --machine needs nccl.
  args = run_args(job, true);
  args.insert(args.end(), {"--collectives", "nccl", "--machine", "gb200-nvl72"});
  expect_input_error(run_chorus(args, true), {"dense_tp4_pp2_dp2.json", "num_procs", "72 GPUs each"});
  args = run_args(job, true);
  args.insert(args.end(), {"--collectives", "nccl"});
  expect_input_error(run_chorus(args, true), {"--collectives", "--machine"});
  args = run_args(job, true);
  args.insert(args.end(), {"--machine", "dgx-a100"});
  expect_input_error(run_chorus(args, true), {"--machine", "--collectives nccl"});
  args = run_args(job, false);
  args.insert(args.end(), {"--collectives", "nccl"});
  expect_input_error(run_chorus(args, true), {"--collectives", "--engine sim"});
}

TEST(SimEngine, BadInputIsOneLine) {
  namespace fs = std::filesystem;
  const Job dense{"examples/llm/llama2-7b.json", "examples/llm/compare/dense_tp4_pp2_dp2.json"};
  // An execution the generator cannot express names the exec file and the key.
  auto exec = nlohmann::json::parse(std::ifstream(kSource + "/" + dense.exec));
  exec["training"] = false;
  const fs::path inference = fs::temp_directory_path() / "chorus-engine-inference.json";
  std::ofstream(inference) << exec.dump();
  auto args = run_args(dense, true);
  args[7] = inference.string();
  expect_input_error(run_chorus(args, true), {"chorus-engine-inference.json", "training"});
  fs::remove(inference);
  // ep_overlap: one microbatch's All-to-All behind another's compute, which the generated passes cannot pair.
  const Job moe{"examples/llm/compare/mixtral-8x7b-s1024.json", "examples/llm/compare/moe_pp4_dp8_ep8.json"};
  exec = nlohmann::json::parse(std::ifstream(kSource + "/" + moe.exec));
  exec["ep_overlap"] = true;
  const fs::path overlapped = fs::temp_directory_path() / "chorus-engine-ep-overlap.json";
  std::ofstream(overlapped) << exec.dump();
  args = run_args(moe, true);
  args[7] = overlapped.string();
  expect_input_error(run_chorus(args, true), {"chorus-engine-ep-overlap.json", "ep_overlap"});
  fs::remove(overlapped);
  // A network whose NPU count is not the job's 16 GPUs.
  const fs::path net = fs::temp_directory_path() / "chorus-engine-net.yml";
  std::ofstream(net) << "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n";
  args = run_args(dense, true);
  args.insert(args.end(), {"--network", net.string()});
  expect_input_error(run_chorus(args, true), {"chorus-engine-net.yml", "npus_count", "num_procs 16"});
  fs::remove(net);
  args = run_args(dense, false);
  args.insert(args.end(), {"--network", "x.yml"});
  expect_input_error(run_chorus(args, true), {"--network", "--engine sim"});
  args = run_args(dense, true);
  args.insert(args.end(), {"--network-model", "packet"});
  expect_input_error(run_chorus(args, true), {"--network-model"});
  args = run_args(dense, false);
  args.insert(args.end(), {"--engine", "simulator"});
  expect_input_error(run_chorus(args, true), {"--engine", "planner or sim"});
  // generate llm --exec takes the parallelism from the execution and the compute times from --system.
  const std::vector<std::string> generate{
      "generate",          "llm", "--model", kSource + "/" + dense.model, "--exec", kSource + "/" + dense.exec, "--out",
      "/tmp/chorus-unused"};
  expect_input_error(run_chorus(generate, true), {"--system", "--exec"});
  args = generate;
  args.insert(args.end(), {"--system", "a100-80gb", "--dp", "2"});
  expect_input_error(run_chorus(args, true), {"--exec", "--dp"});
}

}  // namespace
}  // namespace chorus
