// The DLRM and MoE generators (src/chorus/generate/dlrm.hpp, moe.hpp): collective sizes and the
// dependency structure `chorus fuse` relies on, worked out by hand from the published configurations.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "chorus/chakra/trace.hpp"
#include "chorus/core/error.hpp"
#include "chorus/generate/dlrm.hpp"
#include "chorus/generate/moe.hpp"

namespace chorus {
namespace {

using chakra::CommType;

std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_TRUE(e.names_argument()) << e.what();  // a call's argument, which the CLI names by its flag
    return e.field();
  }
  return "";
}

DlrmSpec dlrm_8() {
  DlrmSpec s;  // MLPerf DLRM defaults: dim 128, bottom 13-512-256-128, top 1024-1024-512-256-1, fp32, 26 tables
  s.nodes = 1;
  s.gpus_per_node = 8;
  s.gpu = fused::load_gpu("a100-80gb");
  return s;
}

TEST(DlrmGenerator, SizesFromTheMlperfConfiguration) {
  // 26 tables over 8 GPUs: ceil(26/8) = 4 here; the All-to-All carries 2048 samples x 8 GPUs x 4 tables x 128 x 4 B.
  EXPECT_EQ(dlrm_all_to_all_bytes(dlrm_8()), int64_t{2048} * 8 * 4 * 128 * 4);
  const auto dir = std::filesystem::temp_directory_path() / "chorus_dlrm_generator";
  std::filesystem::remove_all(dir);
  const std::string prefix = write_dlrm(dir.string(), dlrm_8(), false);
  const chakra::ChakraTrace t = chakra::read_chakra_trace(prefix + ".3.et");
  ASSERT_EQ(t.nodes.size(), 11u);
  // The forward All-to-All depends on the embedding lookup alone, the backward one on the interaction's backward.
  EXPECT_EQ(t.nodes[1].comm_type, static_cast<int64_t>(CommType::AllToAll));
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{0}));
  EXPECT_EQ(t.nodes[7].comm_type, static_cast<int64_t>(CommType::AllToAll));
  EXPECT_EQ(t.nodes[7].data_deps, (std::vector<uint64_t>{6}));
  // MLP gradients, fp32: bottom (13*512+512) + (512*256+256) + (256*128+128) = 171,392 parameters; top from the
  // interaction width 128 + 27*26/2 = 479: 479*1024+1024 + 1024*1024+1024 + 1024*512+512 + 512*256+256 + 256+1
  // = 2,197,505; (171,392 + 2,197,505) * 4 B = 9,475,588 B, after both backward MLPs (nodes 5 and 8).
  EXPECT_EQ(t.nodes[10].comm_type, static_cast<int64_t>(CommType::AllReduce));
  EXPECT_EQ(t.nodes[10].comm_size, 9'475'588);
  EXPECT_EQ(t.nodes[10].data_deps, (std::vector<uint64_t>{5, 8}));
}

TEST(DlrmGenerator, InconsistentSizesNameTheirArgument) {
  DlrmSpec s = dlrm_8();
  s.dim = 64;  // the bottom MLP still ends at 128
  EXPECT_EQ(field_of([&] { validate(s); }), "bottom_mlp");
  s = dlrm_8();
  s.tables = 0;
  EXPECT_EQ(field_of([&] { validate(s); }), "tables");
  s = dlrm_8();
  s.top_mlp = {1024, 0, 1};
  EXPECT_EQ(field_of([&] { validate(s); }), "top_mlp");
}

TEST(MoeGenerator, CapacityPaddedAllToAll) {
  MoeSpec s;
  s.gpu = fused::load_gpu("h100-80gb");
  // ceil(1.25 * 2 * 4096) = 10,240 token slots of 4096 bf16 values: 83,886,080 bytes.
  EXPECT_EQ(moe_all_to_all_bytes(s), int64_t{10'240} * 4096 * 2);
  s.experts = 60;  // not a multiple of ep = 8
  EXPECT_EQ(field_of([&] { validate(s); }), "experts");
  s.experts = 64;
  s.top_k = 65;
  EXPECT_EQ(field_of([&] { validate(s); }), "top_k");
  s.top_k = 2;
  s.capacity_factor = 0;
  EXPECT_EQ(field_of([&] { validate(s); }), "capacity_factor");
}

}  // namespace
}  // namespace chorus
