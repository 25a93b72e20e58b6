// Tests of HLO FLOP and byte counting against hand calculations and XLA's profiler figures.
#include <gtest/gtest.h>

#include <string>

#include "chorus/hlo/cost.hpp"
#include "chorus/hlo/parser.hpp"

namespace chorus::hlo {
namespace {

// Cost of the ROOT of a one-computation module built around `body` (instruction lines of the entry).
OpCost root_cost(const std::string& body, const std::string& extra = "") {
  const Module m = parse_module("HloModule c\n" + extra + "ENTRY %e {\n" + body + "}\n", "c.hlo");
  const Computation& c = m.computations[static_cast<size_t>(m.entry)];
  return CostModel(m).cost(c, c.instructions[static_cast<size_t>(c.root)]);
}

const char* kAdd =
    "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n";

TEST(HloCost, DotIsTwoFlopsPerMultiplyAdd) {
  const OpCost c = root_cost(
      "  %a = f32[128,512] parameter(0)\n  %b = f32[512,256] parameter(1)\n"
      "  ROOT %d = f32[128,256] dot(f32[128,512] %a, f32[512,256] %b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 128 * 256 * 512);
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * (128 * 512 + 512 * 256 + 128 * 256));
}

TEST(HloCost, MatmulConvolutionFromDimLabels) {
  // DLRM's %convolution.336: [128,13] x [13,512], 128 x 512 outputs of 13 multiply-adds each.
  const OpCost c = root_cost(
      "  %a = f32[128,13] parameter(0)\n  %b = f32[13,512] parameter(1)\n"
      "  ROOT %c = f32[128,512]{1,0:T(8,128)} convolution(f32[128,13]{0,1:T(8,128)} %a, f32[13,512] %b), "
      "dim_labels=bf_io->bf\n");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 128 * 512 * 13);
}

// Found by the hlo fuzz harness: a '-' before a non-digit (`-:`) made the integer-list reader loop without
// advancing, growing a vector until memory ran out. Neither `-:` nor a number past 64 bits is an integer, so the
// group count falls back to 1 and the cost is that of MatmulConvolutionFromDimLabels: 2 x 128 x 512 x 13.
TEST(HloCost, GroupCountsThatAreNotIntegersAreIgnored) {
  for (const char* groups : {"-:", "-", "99999999999999999999999"}) {
    const OpCost c = root_cost(
        "  %a = f32[128,13] parameter(0)\n  %b = f32[13,512] parameter(1)\n"
        "  ROOT %c = f32[128,512] convolution(f32[128,13] %a, f32[13,512] %b), dim_labels=bf_io->bf, "
        "feature_group_count=" +
        std::string(groups) + "\n");
    EXPECT_DOUBLE_EQ(c.flops, 2.0 * 128 * 512 * 13) << groups;
  }
}

TEST(HloCost, ConvolutionCountsOnlyWindowPositionsInsideTheInput) {
  // 4x4 input, 3x3 kernel, pad 1 each side, stride 1: per dimension, kernel offsets 0 and 2 each miss one of the
  // 4 outputs (3 + 4 + 3 = 10 valid pairs), so 10 x 10 = 100 multiply-adds.
  const OpCost c = root_cost(
      "  %a = f32[1,4,4,1] parameter(0)\n  %k = f32[3,3,1,1] parameter(1)\n"
      "  ROOT %c = f32[1,4,4,1] convolution(f32[1,4,4,1] %a, f32[3,3,1,1] %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f\n");
  EXPECT_DOUBLE_EQ(c.flops, 200);
}

TEST(HloCost, StridedConvolution) {
  // 5 inputs, kernel 3, stride 2, no padding: outputs at 0 and 2, all 3 taps valid: 6 pairs per dim; 2 batches,
  // 3 input and 4 output features: 2 * 3 * 4 * 6 * 6 multiply-adds.
  const OpCost c = root_cost(
      "  %a = f32[2,5,5,3] parameter(0)\n  %k = f32[3,3,3,4] parameter(1)\n"
      "  ROOT %c = f32[2,2,2,4] convolution(f32[2,5,5,3] %a, f32[3,3,3,4] %k), window={size=3x3 stride=2x2}, "
      "dim_labels=b01f_01io->b01f\n");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 3 * 4 * 36);
}

TEST(HloCost, FeatureGroupsDivideTheInputFeatures) {
  // Depthwise 1x1: 8 groups of one input feature each, 8 outputs, batch 2: 16 multiply-adds.
  const OpCost c = root_cost(
      "  %a = f32[2,1,1,8] parameter(0)\n  %k = f32[1,1,1,8] parameter(1)\n"
      "  ROOT %c = f32[2,1,1,8] convolution(f32[2,1,1,8] %a, f32[1,1,1,8] %k), window={size=1x1}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=8\n");
  EXPECT_DOUBLE_EQ(c.flops, 32);
}

TEST(HloCost, ElementwiseIsOneFlopPerOutputAndTranscendentalsApart) {
  const OpCost add =
      root_cost("  %a = f32[10,20] parameter(0)\n  ROOT %s = f32[10,20] add(f32[10,20] %a, f32[10,20] %a)\n");
  EXPECT_DOUBLE_EQ(add.flops, 200);
  EXPECT_DOUBLE_EQ(add.bytes, 3 * 800);
  const OpCost ex = root_cost("  %a = f32[10,20] parameter(0)\n  ROOT %s = f32[10,20] exponential(f32[10,20] %a)\n");
  EXPECT_DOUBLE_EQ(ex.flops, 0);
  EXPECT_DOUBLE_EQ(ex.transcendentals, 200);
  const OpCost cv =
      root_cost("  %a = f32[16384,1024] parameter(0)\n  ROOT %s = bf16[16384,1024] convert(f32[16384,1024] %a)\n");
  EXPECT_DOUBLE_EQ(cv.flops, 16384.0 * 1024);
  EXPECT_DOUBLE_EQ(cv.bytes, 16384.0 * 1024 * 6);
}

// Bytes count each array as its tiled layout stores it, padded to whole tiles; FLOPs count the logical elements.
TEST(HloCost, BytesCountTheTiledLayoutPadding) {
  // Operand 128 x 32 x 128 x 4 = 2097152 (27 -> 32 rows, 27 -> 128 columns); result 128 x 768 x 4 = 393216
  // (729 -> 768 = 6 x 128 columns, 128 rows whole): 2490368.
  const OpCost r = root_cost(
      "  %a = f32[128,27,27]{2,1,0:T(8,128)} parameter(0)\n"
      "  ROOT %r = f32[128,729]{1,0:T(8,128)} reshape(f32[128,27,27]{2,1,0:T(8,128)} %a)\n");
  EXPECT_DOUBLE_EQ(r.bytes, 2490368);
  EXPECT_DOUBLE_EQ(r.flops, 0);
  // Two operands and the result of 3072 x 4 bytes each (2432 -> 3 x 1024); 2432 FLOPs.
  const OpCost add = root_cost(
      "  %x = f32[2432]{0:T(1024)} parameter(0)\n"
      "  ROOT %s = f32[2432]{0:T(1024)} add(f32[2432]{0:T(1024)} %x, f32[2432]{0:T(1024)} %x)\n");
  EXPECT_DOUBLE_EQ(add.bytes, 3 * 3072 * 4);
  EXPECT_DOUBLE_EQ(add.flops, 2432);
  // A relayout copy: {1,0} stores 32 x 384 x 4 = 49152 bytes, {0,1} 304 x 128 x 4 = 155648; 204800 in all.
  const OpCost copy = root_cost(
      "  %a = f32[27,300]{1,0:T(8,128)} parameter(0)\n"
      "  ROOT %c = f32[27,300]{0,1:T(8,128)} copy(f32[27,300]{1,0:T(8,128)} %a)\n");
  EXPECT_DOUBLE_EQ(copy.bytes, 204800);
}

TEST(HloCost, ReduceAppliesTheReducerOncePerDroppedElement) {
  // bert's %reduce.7721: 32x76 -> scalar, 2431 adds (the profile measures 2431 FLOPs).
  const OpCost c = root_cost(
      "  %a = f32[32,76] parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %r = f32[] reduce(f32[32,76] %a, f32[] %z), dimensions={0,1}, to_apply=%add\n",
      kAdd);
  EXPECT_DOUBLE_EQ(c.flops, 2431);
}

TEST(HloCost, SortIsNTimesCeilLog2N) {
  // bert's %sort.2: 2432 keys, ceil(log2 2432) = 12 (the profile measures 29184 FLOPs).
  const OpCost c = root_cost(
      "  %a = s32[2432] parameter(0)\n  %b = s32[2432] parameter(1)\n"
      "  ROOT %s = (s32[2432], s32[2432]) sort(s32[2432] %a, s32[2432] %b), dimensions={0}, to_apply=%add\n",
      kAdd);
  EXPECT_DOUBLE_EQ(c.flops, 2432.0 * 12);
}

TEST(HloCost, FusionFlopsAreItsBodysAndBytesItsBoundary) {
  // Body: multiply then add on 8x128 (2 x 1024 FLOPs); bytes: one f32[8,128] operand and one output, not the
  // intermediate.
  const char* body =
      "%fb (p: f32[8,128]) -> f32[8,128] {\n  %p = f32[8,128] parameter(0)\n"
      "  %m = f32[8,128] multiply(f32[8,128] %p, f32[8,128] %p)\n  ROOT %s = f32[8,128] add(f32[8,128] %m, f32[8,128] "
      "%p)\n}\n";
  const OpCost c = root_cost(
      "  %a = f32[8,128] parameter(0)\n  ROOT %f = f32[8,128] fusion(f32[8,128] %a), kind=kLoop, calls=%fb\n", body);
  EXPECT_DOUBLE_EQ(c.flops, 2048);
  EXPECT_DOUBLE_EQ(c.bytes, 2 * 4096);
}

TEST(HloCost, ViewsAndTuplesMoveNoBytes) {
  const OpCost c = root_cost(
      "  %a = f32[8,128] parameter(0)\n  %t = (f32[8,128]) tuple(f32[8,128] %a)\n"
      "  ROOT %g = f32[8,128] get-tuple-element((f32[8,128]) %t), index=0\n");
  EXPECT_DOUBLE_EQ(c.bytes, 0);
  EXPECT_DOUBLE_EQ(c.flops, 0);
}

}  // namespace
}  // namespace chorus::hlo
