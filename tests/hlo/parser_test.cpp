// Tests of the HLO text reader: structure, shapes, layouts, attributes, calls, the real DLRM module, bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/hlo/parser.hpp"

namespace chorus::hlo {
namespace {

const char* kSmall = R"(HloModule small, is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0})->f32[8]{0}}

%add_f32 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

%fused_mul (p0: f32[8,128]) -> f32[8,128] {
  %p0 = f32[8,128]{1,0:T(8,128)} parameter(0)
  ROOT %m = f32[8,128]{1,0:T(8,128)} multiply(f32[8,128]{1,0:T(8,128)} %p0, f32[8,128]{1,0:T(8,128)} %p0)
}

ENTRY %main (a: f32[8,128]) -> (f32[8], bf16[2,4]) {
  %a = f32[8,128]{1,0:T(8,128)S(5)} parameter(0), sharding={maximal device=0}
  %f = f32[8,128]{1,0:T(8,128)} fusion(f32[8,128]{1,0:T(8,128)} %a), kind=kLoop, calls=%fused_mul, metadata={op_type="Mul" op_name="a,b{c}"}
  %zero = f32[] constant(0)
  %r = f32[8]{0} reduce(f32[8,128]{1,0:T(8,128)} %f, f32[] %zero), dimensions={1}, to_apply=%add_f32
  %c = bf16[2,4]{1,0:T(2,128)(2,1)} constant({ { 1, 2, 3, 4 }, { 5, 6, 7, 8 } })
  ROOT %t = (f32[8]{0}, /*index=1*/bf16[2,4]{1,0:T(2,128)(2,1)}) tuple(f32[8]{0} %r, bf16[2,4]{1,0} %c)
}
)";

TEST(HloParser, ReadsComputationsInstructionsAndShapes) {
  const Module m = parse_module(kSmall, "small.hlo");
  EXPECT_EQ(m.name, "small");
  ASSERT_EQ(m.computations.size(), 3u);
  ASSERT_EQ(m.entry, 2);
  const Computation& main = m.computations[2];
  EXPECT_EQ(main.name, "main");
  ASSERT_EQ(main.instructions.size(), 6u);
  EXPECT_EQ(main.root, 5);
  const Instruction& t = main.instructions[5];
  EXPECT_EQ(t.opcode, "tuple");
  ASSERT_TRUE(t.shape.is_tuple);
  ASSERT_EQ(t.shape.tuple.size(), 2u);
  EXPECT_EQ(t.shape.tuple[1].element_type, "bf16");
  EXPECT_EQ(t.shape.tuple[1].dims, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(t.shape.bytes(), 8 * 4 + 8 * 2);  // f32[8] + bf16[2,4]
  EXPECT_EQ(t.operands, (std::vector<int>{3, 4}));
  EXPECT_TRUE(m.warnings.empty());
}

TEST(HloParser, ReadsAttributesAndCalledComputations) {
  const Module m = parse_module(kSmall, "small.hlo");
  const Computation& main = m.computations[2];
  const Instruction& f = main.instructions[1];
  EXPECT_EQ(f.attribute("kind"), "kLoop");
  EXPECT_EQ(f.attribute("metadata"), R"({op_type="Mul" op_name="a,b{c}"})");
  ASSERT_EQ(f.called, (std::vector<int>{1}));
  EXPECT_TRUE(m.computations[1].is_fused);
  EXPECT_FALSE(m.computations[0].is_fused);
  const Instruction& r = main.instructions[3];
  EXPECT_EQ(r.attribute("dimensions"), "{1}");
  EXPECT_EQ(r.called, (std::vector<int>{0}));
  EXPECT_EQ(main.instructions[0].attribute("sharding"), "{maximal device=0}");
  EXPECT_EQ(main.instructions[0].parameter_number, 0);
}

TEST(HloParser, KeepsUnknownOpcodesWithOneWarning) {
  const Module m = parse_module(
      "HloModule u\nENTRY %e {\n  %a = f32[4] parameter(0)\n  %b = f32[4] frobnicate(f32[4] %a)\n"
      "  ROOT %c = f32[4] frobnicate(f32[4] %b)\n}\n",
      "u.hlo");
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("frobnicate"), std::string::npos);
  EXPECT_NE(m.warnings[0].find("line 4"), std::string::npos);  // the first use
  EXPECT_EQ(m.computations[0].instructions[2].operands, (std::vector<int>{1}));
}

TEST(HloParser, ReadsOperandsWithoutShapesAndNamesWithoutPercent) {
  const Module m =
      parse_module("HloModule n\nENTRY main {\n  a = f32[4] parameter(0)\n  ROOT b = f32[4] add(a, a)\n}\n", "n.hlo");
  EXPECT_EQ(m.computations[0].instructions[1].operands, (std::vector<int>{0, 0}));
}

// The real MLPerf DLRM module: 307 computations and 2923 instructions by a line count of the file
// (grep -cE '^(ENTRY )?%' and grep -cE '^\s+(ROOT )?%\S+ = '), 286 fusions, no unknown opcodes.
TEST(HloParser, ReadsTheDlrmModuleWithoutWarnings) {
  const Module m = read_module(
      (std::filesystem::path(CHORUS_SOURCE_DIR) / "tests/data/hlo/dlrm_tpuv3_after_optimizations.hlo.txt").string());
  EXPECT_EQ(m.computations.size(), 307u);
  size_t instructions = 0;
  size_t fusions = 0;
  for (const Computation& c : m.computations) {
    instructions += c.instructions.size();
    for (const Instruction& in : c.instructions)
      fusions += in.opcode == "fusion" ? 1 : 0;
  }
  EXPECT_EQ(instructions, 2923u);
  EXPECT_EQ(fusions, 286u);
  EXPECT_EQ(m.computations[static_cast<size_t>(m.entry)].instructions.size(), 134u);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
}

std::string error_of(const std::string& text) {
  try {
    parse_module(text, "bad.hlo");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(HloParser, TruncatedModuleNamesFileAndLine) {
  const std::string what = error_of("HloModule t\nENTRY %e {\n  %a = f32[4] parameter(0)\n");
  EXPECT_EQ(what.rfind("bad.hlo: line 2, column 10: expected a '}' closing computation %e", 0), 0u) << what;
}

TEST(HloParser, UnbalancedBraceInAttributeNamesItsLine) {
  const std::string what = error_of(
      "HloModule t\nENTRY %e {\n  %a = f32[4] parameter(0), metadata={op_type=\"x\"\n  ROOT %b = f32[4] "
      "negate(f32[4] %a)\n}\n");
  EXPECT_EQ(what.rfind("bad.hlo: line 3, column 38: expected a matching '}' in attribute metadata", 0), 0u) << what;
}

// Found by the hlo fuzz harness: a closing bracket with nothing open read the back of an empty stack.
TEST(HloParser, StrayClosingBracketInAttributeIsAnError) {
  const std::string what = error_of("HloModule c\nENTRY %e {\n  ROOT %p = () m(), n=]\n}\n");
  EXPECT_EQ(what.rfind("bad.hlo: line 3, column 23: expected a '[' opened before this ']' in attribute n", 0), 0u)
      << what;
}

TEST(HloParser, UndefinedOperandIsAnError) {
  const std::string what = error_of("HloModule t\nENTRY %e {\n  ROOT %b = f32[4] negate(f32[4] %nowhere)\n}\n");
  EXPECT_EQ(what, "bad.hlo: line 3, column 3: operand %nowhere of %b is not an instruction of computation %e");
}

TEST(HloParser, UndefinedComputationIsAnError) {
  const std::string what = error_of(
      "HloModule t\nENTRY %e {\n  %a = f32[4] parameter(0)\n  ROOT %f = f32[4] fusion(f32[4] %a), "
      "kind=kLoop, calls=%missing\n}\n");
  EXPECT_EQ(what, "bad.hlo: line 4, column 3: calls=%missing of %f is not a computation of the module");
}

TEST(HloParser, ShapeThatDoesNotParseIsAnError) {
  EXPECT_EQ(error_of("HloModule t\nENTRY %e {\n  ROOT %a = f33[4] parameter(0)\n}\n"),
            "bad.hlo: line 3, column 13: expected a shape with an element type such as f32, bf16, s32 or pred, "
            "found 'f33[4] parameter(0)'");
  EXPECT_EQ(error_of("HloModule t\nENTRY %e {\n  ROOT %a = f32[4,x] parameter(0)\n}\n"),
            "bad.hlo: line 3, column 19: expected a dimension size, found 'x] parameter(0)'");
}

TEST(HloParser, ShapeTooLargeForSixtyFourBitSizesIsAnError) {
  // 2^30 x 2^30 f32 elements are 2^62 bytes, past the 2^50-byte limit that keeps every size sum in int64.
  EXPECT_EQ(error_of("HloModule t\nENTRY %e {\n  ROOT %a = f32[1073741824,1073741824] parameter(0)\n}\n"),
            "bad.hlo: line 3, column 13: expected a shape of at most 2^50 bytes, found 'f32[1073741824,10737'");
}

// The shape of a module's one parameter, written `text` (e.g. "f32[8]{0:T(256)}").
Shape parameter_shape(const std::string& text) {
  const Module m = parse_module("HloModule t\nENTRY %e {\n  ROOT %a = " + text + " parameter(0)\n}\n", "t.hlo");
  return m.computations[0].instructions[0].shape;
}

// A tiled layout stores the array padded to whole tiles of its first tile (XLA's ShapeUtil::ArraySize): each
// dimension the tile covers, matched from the most minor end of minor_to_major, rounds up to a multiple of its
// tile size. Sizes by hand; bytes() stays the logical size.
TEST(HloParser, TiledLayoutPadsTheMinorDimensionsToWholeTiles) {
  const Shape a = parameter_shape("f32[128,27,27]{2,1,0:T(8,128)}");
  EXPECT_EQ(a.memory_bytes(), 128 * 32 * 128 * 4);  // dim 2: 27 -> 128, dim 1: 27 -> 32, dim 0 kept
  EXPECT_EQ(a.bytes(), 128 * 27 * 27 * 4);
  EXPECT_EQ(a.elements(), 128 * 27 * 27);
  EXPECT_EQ(parameter_shape("f32[2432]{0:T(1024)}").memory_bytes(), 3072 * 4);            // 2432 -> 3 x 1024
  EXPECT_EQ(parameter_shape("f32[128,27,27]").memory_bytes(), 128 * 27 * 27 * 4);         // no layout
  EXPECT_EQ(parameter_shape("f32[128,27,27]{2,1,0}").memory_bytes(), 128 * 27 * 27 * 4);  // no tiling
  EXPECT_EQ(parameter_shape("f32[128,27,27]{2,1,0:S(5)}").memory_bytes(), 128 * 27 * 27 * 4);
  // minor_to_major picks the padded dimensions: {1,0} pads dim 1 (300 -> 384) to 128 and dim 0 (27 -> 32) to 8;
  // {0,1} pads dim 0 (27 -> 128) to 128 and dim 1 (300 -> 304) to 8.
  EXPECT_EQ(parameter_shape("f32[27,300]{1,0:T(8,128)}").memory_bytes(), 32 * 384 * 4);
  EXPECT_EQ(parameter_shape("f32[27,300]{0,1:T(8,128)}").memory_bytes(), 128 * 304 * 4);
  // bf16 with the (2,1) sub-tile: 30522 -> 30528 rows (3816 x 8), 1024 columns whole; the sub-tile pairs rows
  // within a tile of 8 and adds nothing.
  EXPECT_EQ(parameter_shape("bf16[30522,1024]{1,0:T(8,128)(2,1)}").memory_bytes(), int64_t{30528} * 1024 * 2);
  EXPECT_EQ(parameter_shape("bf16[2432]{0:T(1024)(128)(2,1)}").memory_bytes(), 3072 * 2);
  // Scalars: the one-element array rounds up to one tile (XLA counts the dimensions a tile has beyond the array's
  // as size 1): 256 x 4 B, 1024 x 1 B.
  EXPECT_EQ(parameter_shape("f32[]{:T(256)}").memory_bytes(), 256 * 4);
  EXPECT_EQ(parameter_shape("pred[]{:T(1024)}").memory_bytes(), 1024);
  EXPECT_EQ(parameter_shape("f32[5]{0:T(8,128)}").memory_bytes(), 8 * 128 * 4);  // 5 -> 128, and 1 row -> 8
  EXPECT_EQ(parameter_shape("f32[8,100]{1,0:T(8,128)S(5)}").memory_bytes(), 8 * 128 * 4);
  // '*' folds a dimension into the next more minor one (openxla's tiled_layout.md): [2,7,8,11,10] by (*,*,2,*,3)
  // is [112,110] by (2,3), 112 rows already even and 110 -> 111 columns.
  EXPECT_EQ(parameter_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}").memory_bytes(), 112 * 111 * 4);
  // A tuple: the sum of its padded leaves, 256 x 4 + 8 x 128 x 2.
  EXPECT_EQ(parameter_shape("(f32[5]{0:T(256)}, bf16[3,3]{1,0:T(8,128)(2,1)})").memory_bytes(), 1024 + 2048);
}

TEST(HloParser, MalformedTilingIsOneErrorLine) {
  auto error_for = [](const std::string& shape) {
    return error_of("HloModule t\nENTRY %e {\n  ROOT %a = " + shape + " parameter(0)\n}\n");
  };
  EXPECT_EQ(error_for("f32[4]{0:T(0)}"),
            "bad.hlo: line 3, column 24: expected a tile size >= 1, found '0)} parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:T(-8)}"),
            "bad.hlo: line 3, column 24: expected a tile size >= 1, found '-8)} parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:T(8,)}"), "bad.hlo: line 3, column 26: expected a tile size, found ')} parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:T(8,128}"),
            "bad.hlo: line 3, column 29: expected ',' or ')' in a tile, found '} parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:T(*)}"),
            "bad.hlo: line 3, column 25: expected a tile whose most minor size is a number, not '*', found ')} "
            "parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:T(8)T(8)}"),
            "bad.hlo: line 3, column 26: expected one tiling T(...) in a layout, found 'T(8)} parameter(0)'");
  EXPECT_EQ(error_for("f32[4]{0:Q}"),
            "bad.hlo: line 3, column 22: expected a layout field such as T(8,128) or S(1), or '}' closing the "
            "layout, found 'Q} parameter(0)'");
  EXPECT_EQ(error_for("f32[4,4]{1,1:T(8,128)}"),
            "bad.hlo: line 3, column 24: expected each dimension number of the rank-2 shape at most once in its "
            "layout, found '1:T(8,128)} paramete'");
  EXPECT_EQ(error_for("f32[4,4]{1:T(8,128)}"),
            "bad.hlo: line 3, column 23: expected all 2 dimension numbers of the shape in its layout, found "
            "':T(8,128)} parameter'");
  // 4 elements padded to one tile of 2^50: 2^52 bytes.
  EXPECT_EQ(error_for("f32[4]{0:T(1125899906842624)}"),
            "bad.hlo: line 3, column 13: expected a shape of at most 2^50 bytes once padded to whole tiles, found "
            "'f32[4]{0:T(112589990'");
  EXPECT_EQ(error_of("HloModule t\nENTRY %e {\n  ROOT %a = f32[4]{0:T(8"),
            "bad.hlo: line 3, column 25: expected ',' or ')' in a tile, found end of file");
}

TEST(HloParser, MissingEntryAndMissingHeaderAreErrors) {
  EXPECT_EQ(error_of("HloModule t\n%c {\n  ROOT %a = f32[4] parameter(0)\n}\n"),
            "bad.hlo: ENTRY: no ENTRY computation in the module");
  EXPECT_EQ(error_of("ENTRY %c {\n}\n"), "bad.hlo: line 1, column 1: expected 'HloModule', found 'ENTRY %c {'");
}

TEST(HloParser, CallCycleIsAnError) {
  EXPECT_EQ(
      error_of("HloModule t\n%c (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n  ROOT %f = f32[] fusion(f32[] "
               "%p), kind=kLoop, calls=%c\n}\nENTRY %e {\n  %a = f32[] parameter(0)\n  ROOT %g = f32[] fusion(f32[] "
               "%a), kind=kLoop, calls=%c\n}\n"),
      "bad.hlo: line 4, column 3: %f calls %c, which is already being called: a call cycle");
}

TEST(HloParser, DeeplyNestedTupleShapeIsAnErrorNotACrash) {
  const std::string deep = "HloModule t\nENTRY %e {\n  ROOT %a = " + std::string(100000, '(') + "f32[]" +
                           std::string(100000, ')') + " parameter(0)\n}\n";
  EXPECT_EQ(error_of(deep).rfind("bad.hlo: line 3, column 77: expected tuple shapes nested at most 64 deep", 0), 0u)
      << error_of(deep).substr(0, 200);
}

TEST(HloParser, ParsesOneProfileLineWithItsOperandShapes) {
  const Module m = parse_instruction_line(
      "%reduce.1 = f32[]{:T(256)} reduce(f32[32,76]{1,0:T(8,128)} %x, f32[]{:T(256)} %y), dimensions={0,1}, "
      "to_apply=%sum",
      "profile");
  const Computation& c = m.computations[static_cast<size_t>(m.entry)];
  ASSERT_EQ(c.instructions.size(), 3u);
  EXPECT_EQ(c.instructions[1].shape.dims, (std::vector<int64_t>{32, 76}));
  EXPECT_EQ(c.instructions[0].called.size(), 1u);
}

// A profile line's conditional with branch_computations={...} (nmt's %conditional.33 has six): each branch becomes
// its own scalar-add stand-in, as a single to_apply does; the list was taken as one name and the row not rebuilt.
TEST(HloParser, ProfileLineConditionalCallsEachBranch) {
  const Module m = parse_instruction_line(
      "%conditional.1 = f32[8]{0} conditional(s32[]{:T(256)} %i, f32[8]{0} %a, f32[8]{0} %b, f32[8]{0} %c), "
      "branch_computations={%branch0.1, %branch1.2, %branch2.3}",
      "profile");
  const Computation& c = m.computations[static_cast<size_t>(m.entry)];
  ASSERT_EQ(c.instructions.size(), 5u);  // the conditional and its four operands
  ASSERT_EQ(c.instructions[0].called.size(), 3u);
  EXPECT_EQ(m.computations.size(), 4u);
  EXPECT_EQ(m.computations[static_cast<size_t>(c.instructions[0].called[0])].name, "branch0.1");
  EXPECT_EQ(m.computations[static_cast<size_t>(c.instructions[0].called[2])].name, "branch2.3");
}

}  // namespace
}  // namespace chorus::hlo
