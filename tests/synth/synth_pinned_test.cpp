// The All-Gather schedules `chorus synth` gives on the TACOS inputs (1 GiB output, --chunks auto, seed 1), pinned
// to the picosecond: speed work on the matching engine and the Schedule must not change what is synthesized. The
// pinned values (time, transfer count, and a digest of every op's link, chunk, start and finish in order) come from
// the engine before the speed work of issues #28/#30 (commit 27c6c08); each time is also checked against the cut
// bound of shared/reference/tacos-bounds.csv (ag_cont_bound_us), so a pinned value can never be below it.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/edge_list.hpp"

namespace chorus {
namespace {

struct Pinned {
  const char* label;
  int64_t time_ps;
  uint64_t transfers;
  uint64_t digest;
};

// FNV-1a over each op's (link, chunk, start, finish): any change in what moves where and when changes it.
uint64_t schedule_digest(const SynthResult& r) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  for (uint32_t op = 0; op < r.ops.size(); ++op) {
    mix(r.ops[op].link.value);
    mix(r.schedule.chunk(OpId{op}));
    mix(static_cast<uint64_t>(r.ops[op].start.picoseconds()));
    mix(static_cast<uint64_t>(r.ops[op].finish.picoseconds()));
  }
  return h;
}

// tacos-bounds.csv's ag_cont_bound_us per label.
std::map<std::string, double> cut_bounds_us(const std::string& path) {
  std::map<std::string, double> bounds;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');)
      fields.push_back(f);
    if (fields.size() > 7)
      bounds[fields[0]] = std::stod(fields[7]);
  }
  return bounds;
}

class SynthPinned : public ::testing::TestWithParam<Pinned> {};

TEST_P(SynthPinned, AllGatherScheduleIsUnchanged) {
  const Pinned& p = GetParam();
  const std::string dir = CHORUS_REFERENCE_DIR;
  const std::string input = dir + "/tacos-inputs/" + p.label + ".txt";
  if (!std::filesystem::exists(input))
    GTEST_SKIP() << "no reference data at " << dir;
  SynthOptions o;
  o.kind = CollectiveKind::AllGather;
  o.size = Bytes::gib(1);
  const SynthResult r = synthesize(load_edge_list(input), o);
  EXPECT_EQ(r.time.picoseconds(), p.time_ps) << p.label;
  EXPECT_EQ(r.schedule.transfer_count(), p.transfers) << p.label;
  EXPECT_EQ(schedule_digest(r), p.digest) << p.label << std::hex << " digest 0x" << schedule_digest(r);
  const auto bounds = cut_bounds_us(dir + "/tacos-bounds.csv");
  ASSERT_TRUE(bounds.count(p.label)) << p.label;
  // The CSV rounds to 1e-3 us.
  EXPECT_GE(r.time.microseconds(), bounds.at(p.label) - 1e-3) << p.label << ": below the cut bound";
}

INSTANTIATE_TEST_SUITE_P(TacosInputs, SynthPinned,
                         ::testing::Values(
                             // The 1,024-NPU inputs (issue #30's speed floors: mesh, torus, hypercube, DGX-like).
                             Pinned{"mesh2d_32x32", 10256000000, 1047552, 0x6c10fd5264f78604ull},
                             Pinned{"torus2d_32x32", 5128000000, 1047552, 0x61d4f412760ffa60ull},
                             Pinned{"hypercube_d10", 2063218750, 1047552, 0x991199db0d729f80ull},
                             Pinned{"dgxlike_128x8", 5138015625, 1047552, 0x4fbe14cc8328bb1full},
                             Pinned{"ring_1024", 10256000000, 1047552, 0x90da50b2cc191ec6ull},
                             Pinned{"uniring_1024", 20491968750, 1047552, 0x26d0d37b3e24583dull},
                             Pinned{"torus3d_16x8x8", 3425343750, 1047552, 0x50f8ce4efc73c18ull},
                             Pinned{"hetmesh2d_32x32", 13609500000, 1047552, 0x6bba7e1882d5be7cull},
                             Pinned{"asymtorus2d_32x32", 8177000000, 1047552, 0x5ad2b1387e5ebba2ull},
                             // Smaller ones: several chunks per NPU, every priority (<= 128 NPUs), the rails.
                             Pinned{"ring_16", 9382500000, 480, 0xf4e1d70c91892175ull},
                             Pinned{"torus2d_8x8", 4953375000, 16128, 0xe5260d319d233e3dull},
                             Pinned{"asymtorus2d_8x8", 7940084340, 24192, 0x9c13528eb62f8a85ull},
                             Pinned{"hypercube_d6", 3291750000, 8064, 0x2d68b220d49ed639ull},
                             Pinned{"fc_64", 313000000, 4032, 0xa8e37ad8f2f8ec85ull},
                             Pinned{"dgxlike_2x8", 5071312500, 3840, 0x655bbeb205ecd59dull},
                             Pinned{"torus3d_8x8x4", 3362812500, 130560, 0x1618fe220ef62389ull},
                             Pinned{"hetmesh2d_16x16", 13366250000, 65280, 0x1adaaae3ceeb961ull}),
                         [](const ::testing::TestParamInfo<Pinned>& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace chorus
