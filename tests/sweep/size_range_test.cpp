// Size sweeps: nccl-tests' -b/-e/-f (geometric), -i (arithmetic), lists, and the ranges that must be refused.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/sweep/size_range.hpp"

namespace chorus {
namespace {

std::vector<int64_t> counts(const std::string& text) {
  std::vector<int64_t> out;
  for (const Bytes b : parse_size_range(text, "--size"))
    out.push_back(b.count());
  return out;
}

TEST(SizeRange, GeometricDoublesFromStartToEnd) {
  // 8 B .. 32 GiB by x2: 2^3 .. 2^35, 33 sizes.
  const std::vector<int64_t> sizes = counts("8B:32GiB:x2");
  ASSERT_EQ(sizes.size(), 33u);
  for (size_t i = 0; i < sizes.size(); ++i)
    EXPECT_EQ(sizes[i], int64_t{8} << i);
}

TEST(SizeRange, GeometricStopsAtTheLastSizeNotAboveTheEnd) {
  // nccl-tests -b 8 -e 100 -f 2: 8, 16, 32, 64 (128 > 100).
  EXPECT_EQ(counts("8:100:x2"), (std::vector<int64_t>{8, 16, 32, 64}));
  // A fractional factor rounds down: 1024 * 1.5^k for k = 0..5 (1.5^5 * 1024 = 7776 <= 8192 < 11664).
  EXPECT_EQ(counts("1KiB:8KiB:x1.5"), (std::vector<int64_t>{1024, 1536, 2304, 3456, 5184, 7776}));
}

TEST(SizeRange, ArithmeticListAndSingle) {
  EXPECT_EQ(counts("1MiB:4MiB:+1MiB"), (std::vector<int64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
  EXPECT_EQ(counts("1KiB,8KiB,1G"), (std::vector<int64_t>{1024, 8192, int64_t{1} << 30}));
  EXPECT_EQ(counts("64MiB"), (std::vector<int64_t>{64 << 20}));
  EXPECT_TRUE(is_size_range("1KiB,8KiB"));
  EXPECT_TRUE(is_size_range("8:64:x2"));
  EXPECT_FALSE(is_size_range("64MiB"));
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_size_range(text, "--size");
    ADD_FAILURE() << "accepted " << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--size"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(SizeRange, BadRangesAreRefused) {
  expect_error("8GiB:8B:x2", "ends below its start");
  expect_error("8B:8GiB:x1", "must be > 1");
  expect_error("8B:8GiB:x0.5", "must be > 1");
  expect_error("8B:8GiB:xtwo", "not a number");
  expect_error("1MiB:8MiB:+0", "must be > 0");
  expect_error("8B:8GiB", "not a size range");
  expect_error("8B:8GiB:2", "not a size range");
  expect_error("1B:1GiB:+1B", "more than 10000 sizes");
  expect_error("1KiB,,2KiB", "cannot parse");
  expect_error("1KiB:2PiB:x2", "unknown size unit 'PiB'");
}

}  // namespace
}  // namespace chorus
