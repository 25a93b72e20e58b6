// `chorus collective --algorithm msccl:FILE` and `--topology NCCL.xml` end to end: values worked out by hand
// (tests/data/msccl/README.md, tests/data/nccl/README.md), and every malformed file giving one line on stderr that
// names the file and the element, exit status 2, nothing on stdout.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::CliRun;

const std::string kMsccl = std::string(CHORUS_SOURCE_DIR) + "/tests/data/msccl/";
const std::string kNccl = std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl/";

std::vector<std::string> ring_allreduce(const std::string& file) {
  return {"collective",   "--topology", "ring:4", "--bandwidth", "10GB/s",      "--latency",    "1us",
          "--collective", "all_reduce", "--size", "4MB",         "--algorithm", "msccl:" + file};
}

nlohmann::json run_json(std::vector<std::string> args) {
  args.push_back("--json");
  const CliRun run = testing_support::run_chorus_split(args);
  EXPECT_EQ(run.status, 0) << run.err;
  const nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << run.out;
  return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

// Exit 2, nothing on stdout, exactly one line on stderr: "error: <file>: <where>: ...".
void expect_one_line_error(const std::vector<std::string>& args, const std::string& file, const std::string& where) {
  const CliRun run = testing_support::run_chorus_split(args);
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.err.rfind("error: " + file + ": " + where, 0), 0u) << run.err;
}

TEST(FormatsCli, MscclRingAllReduce) {
  // 6 ring hops of 1 us + 1 MB / 10 GB/s each, back to back (msccl_reader_test.cpp): 606 us. The cut bound of a
  // 4 MB All-Reduce on a bidirectional 4-ring of 10 GB/s links is 300 us, so the time is feasible, at 2.02x.
  const nlohmann::json j = run_json(ring_allreduce(kMsccl + "allreduce_ring_4.xml"));
  EXPECT_DOUBLE_EQ(j.value("time_ns", 0.0), 606000.0);
  EXPECT_EQ(j.value("chunk_bytes", 0), 1000000);
  EXPECT_EQ(j.value("transfers", 0), 24);
  EXPECT_TRUE(j.value("semantics_checked", false));
  EXPECT_TRUE(j.value("physically_feasible", false));
  EXPECT_NEAR(j.value("ratio", 0.0), 606.0 / 300.0, 0.02);
}

TEST(FormatsCli, MscclAllToAllAgainstSynth) {
  // All pairs at once on fc:8: 1 us + 1 MB / 10 GB/s = 101 us under the flow model (one flow per link); the
  // synthesized All-to-All routes each chunk on its direct link as well.
  const nlohmann::json j = run_json({"collective", "--topology", "fc:8", "--bandwidth", "10GB/s", "--latency", "1us",
                                     "--collective", "all_to_all", "--size", "8MB", "--model", "flow", "--algorithm",
                                     "msccl:" + kMsccl + "alltoall_allpairs_8.xml", "--compare-synth"});
  EXPECT_DOUBLE_EQ(j.value("time_ns", 0.0), 101000.0);
  EXPECT_GE(j.value("synth_time_ns", 0.0), 101000.0);  // nothing beats every chunk on its own link at once
  EXPECT_GT(j.value("msccl_over_synth", 0.0), 0.0);
}

TEST(FormatsCli, MscclRequestMismatches) {
  const std::string file = kMsccl + "allreduce_ring_4.xml";
  std::vector<std::string> args = ring_allreduce(file);
  args[8] = "all_gather";
  expect_one_line_error(args, file, "algo: coll");
  args = ring_allreduce(file);
  args[2] = "ring:8";
  expect_one_line_error(args, file, "algo: ngpus");
  args = ring_allreduce(file);
  args.insert(args.end(), {"--splits", "4"});
  const CliRun run = testing_support::run_chorus_split(args);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--splits"), std::string::npos) << run.err;
}

TEST(FormatsCli, MscclBadFiles) {
  const std::pair<const char*, const char*> cases[] = {{"dangling_dependency.xml", "gpu 1 tb 0 step 2: depid"},
                                                       {"steps_out_of_order.xml", "gpu 2 tb 0 step 3: s"},
                                                       {"buffer_out_of_range.xml", "gpu 3 tb 0 step 3: dstoff"},
                                                       {"unknown_step_type.xml", "gpu 0 tb 0 step 4: type"},
                                                       {"dependency_cycle.xml", "gpu 0 tb"},
                                                       {"unmatched_send.xml", "gpu 2 tb 0: send"},
                                                       {"missing_reduction.xml", "gpu 0 output chunk 1"},
                                                       {"not_xml.xml", "line 2"},
                                                       {"unknown_buffer.xml", "gpu 0 tb 0 step 1: srcbuf"}};
  for (const auto& [name, where] : cases) {
    const std::string file = kMsccl + "bad/" + name;
    std::vector<std::string> args = ring_allreduce(file);
    if (std::string(name) == "dependency_cycle.xml")
      args[2] = "ring:1";  // the cycle file has one GPU
    SCOPED_TRACE(name);
    expect_one_line_error(args, file, where);
  }
}

TEST(FormatsCli, NcclTopologyBound) {
  // 8 GB All-Gather on the DGX-A100-like dump: 7 GB into each GPU over 240 + 24 GB/s (nccl_topo_test.cpp).
  const nlohmann::json j =
      run_json({"bound", "--topology", kNccl + "dgx_a100_like.xml", "--collective", "all_gather", "--size", "8GB"});
  EXPECT_NEAR(j.value("bandwidth_bound_ns", 0.0), 7e9 / 264e9 * 1e9, 1.0);
  EXPECT_EQ(j.value("npus", 0), 8);
}

TEST(FormatsCli, NcclCollectiveUsesNvlink) {
  // A ring All-Reduce over the NVSwitch: each of the 2 x 7 steps moves 1/8 of 8 GB over a 240 GB/s NVLink hop into
  // and out of the NVSwitch: 14 x 1e9 / 240e9 s = 58.333 ms under the unaware model (no latencies in the dump).
  const nlohmann::json j = run_json(
      {"collective", "--topology", kNccl + "dgx_a100_like.xml", "--collective", "all_reduce", "--size", "8GB"});
  EXPECT_NEAR(j.value("time_ns", 0.0), 14e9 / 240e9 * 1e9, 1.0);
}

TEST(FormatsCli, NcclBadFiles) {
  const std::pair<const char*, const char*> cases[] = {{"no_gpus.xml", "gpu"},
                                                       {"unknown_nvlink_target.xml", "pci 0000:20:00.0 gpu nvlink"},
                                                       {"duplicate_rank.xml", "pci 0000:40:00.0 gpu: rank"},
                                                       {"gpu_without_sm.xml", "pci 0000:30:00.0 gpu: sm"},
                                                       {"no_system.xml", "system"}};
  for (const auto& [name, where] : cases) {
    const std::string file = kNccl + "bad/" + name;
    SCOPED_TRACE(name);
    expect_one_line_error({"bound", "--topology", file, "--collective", "all_gather", "--size", "1GB"}, file, where);
  }
}

}  // namespace
}  // namespace chorus
