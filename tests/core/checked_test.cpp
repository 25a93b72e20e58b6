// Checked arithmetic for input numbers and the JSON nesting pre-scan: overflow and out-of-range values are
// chorus::Error naming the source and field, never wrapped or clamped values.
#include "chorus/core/checked.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(Checked, MultiplyAndAddInRange) {
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31, "f", "x"), int64_t{1} << 62);
  EXPECT_EQ(checked_mul(-3, 7, "f", "x"), -21);
  EXPECT_EQ(checked_add(kMax - 1, 1, "f", "x"), kMax);
}

TEST(Checked, MultiplyOverflowNamesField) {
  try {
    (void)checked_mul(int64_t{1} << 32, int64_t{1} << 31, "exec.json", "tensor_par x pipeline_par");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "exec.json");
    EXPECT_EQ(e.field(), "tensor_par x pipeline_par");
    EXPECT_EQ(e.message(), "4294967296 * 2147483648 overflows a 64-bit integer");
  }
  EXPECT_THROW((void)checked_add(kMax, 1, "f", "x"), Error);
}

TEST(Checked, TimeFromSeconds) {
  EXPECT_EQ(checked_time_from_seconds(1.5e-6, "f", "x"), Time::ps(1'500'000));
  EXPECT_EQ(checked_time_from_picoseconds(2.5, "f", "x"), Time::ps(3));  // llround: half away from zero
  // 9.2e6 s is the largest accepted (2^63 ps is about 9.22e6 s).
  EXPECT_EQ(checked_time_from_seconds(9.2e6, "f", "x"), Time::ps(9'200'000'000'000'000'000));
  EXPECT_THROW((void)checked_time_from_seconds(9.21e6, "f", "x"), Error);
  EXPECT_THROW((void)checked_time_from_seconds(-1e-12, "f", "x"), Error);
  EXPECT_THROW((void)checked_time_from_seconds(std::numeric_limits<double>::infinity(), "f", "x"), Error);
  EXPECT_THROW((void)checked_time_from_seconds(std::numeric_limits<double>::quiet_NaN(), "f", "x"), Error);
}

TEST(Checked, WholeNumbersInRange) {
  EXPECT_EQ(checked_integer(4.0, 1, 10, "f", "x"), 4);
  EXPECT_THROW((void)checked_integer(0.5, 1, 10, "mem.json", "num-npus-per-node"), Error);
  EXPECT_THROW((void)checked_integer(11.0, 1, 10, "f", "x"), Error);
  EXPECT_THROW((void)checked_integer(1e300, 1, 10, "f", "x"), Error);
}

TEST(Checked, NpuIdsBelowTwoToThe24) {
  EXPECT_EQ(checked_npu_id((uint64_t{1} << 24) - 1, "f", "x"), (uint32_t{1} << 24) - 1);
  EXPECT_THROW((void)checked_npu_id(uint64_t{1} << 24, "f", "x"), Error);
  EXPECT_THROW((void)checked_npu_id(uint64_t{1} << 32, "f", "x"), Error);  // would truncate to 0
}

TEST(JsonNesting, LimitIs128Levels) {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_NO_THROW(check_nesting_depth(nested(128), "a.json"));
  try {
    check_nesting_depth("{\n\"a\":\n" + nested(129) + "}", "a.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "a.json");
    EXPECT_EQ(e.field(), "line 3");
  }
  // Brackets inside strings (with escaped quotes) do not count.
  EXPECT_NO_THROW(check_nesting_depth("[\"\\\"" + std::string(500, '[') + "\"]", "a.json"));
}

TEST(JsonNesting, ParseErrorsNameTheFile) {
  try {
    (void)parse_json_text("{\"x\": 1e400}", "sys.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "sys.json");
    EXPECT_NE(e.message().find("1e400"), std::string::npos) << e.message();
  }
  EXPECT_THROW((void)parse_json_text("{\"x\": }", "sys.json"), Error);
  EXPECT_EQ(parse_json_text("{\"x\": [1, 2]}", "sys.json")["x"][1], 2);
}

}  // namespace
}  // namespace chorus
