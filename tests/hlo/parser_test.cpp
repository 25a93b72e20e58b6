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
