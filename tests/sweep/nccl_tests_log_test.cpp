// Reading nccl-tests output: the column layouts of current and older versions, mpirun's prefix, noise lines, and
// malformed logs (one error naming the file and the line).
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"

namespace chorus {
namespace {

constexpr const char* kHeader =
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

TEST(NcclTestsLog, ReadsBothColumnGroups) {
  const std::string text = std::string("# nThread 1 nGpus 8\n") + kHeader +
                           "host:1:1 [0] NCCL INFO Launch mode Parallel\n"
                           "           8             2     float     sum      -1    37.76    0.00    0.00      0    "
                           "36.09    0.00    0.00      0\n"
                           "  17179869184    4294967296     float     sum      -1   123456   139.2   450.3    N/A  "
                           "1.2e+05   143.2   463.3    N/A\n"
                           "# Avg bus bandwidth    : 12.3\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "log.txt");
  ASSERT_EQ(log.rows.size(), 2u);
  EXPECT_EQ(log.rows[0].size, Bytes(8));
  EXPECT_EQ(log.rows[0].count, 2);
  EXPECT_EQ(log.rows[0].type, "float");
  EXPECT_EQ(log.rows[0].redop, "sum");
  EXPECT_DOUBLE_EQ(log.rows[0].out_of_place.time_us, 37.76);
  ASSERT_TRUE(log.rows[0].in_place.has_value());
  EXPECT_DOUBLE_EQ(log.rows[0].in_place->time_us, 36.09);
  EXPECT_EQ(log.rows[1].size, Bytes(int64_t{16} << 30));
  EXPECT_DOUBLE_EQ(log.rows[1].out_of_place.busbw_GBps, 450.3);
  EXPECT_DOUBLE_EQ(log.rows[1].in_place->time_us, 120000.0);  // %e when the time does not fit 7 characters
  EXPECT_EQ(log.rows[1].line, 7u);  // comment, 3 header lines, the NCCL INFO line, then the rows
  EXPECT_EQ(log.find(Bytes(8)), &log.rows[0]);
  EXPECT_EQ(log.find(Bytes(9)), nullptr);
}

TEST(NcclTestsLog, CountsTheRankLinesAndNamesTheProgram) {
  // Three rank lines: '#' apart, '#' joined, and one whose '#' rendered markdown dropped; "Ranks" lines are not.
  const std::string text = std::string("# Collective test starting: all_gather_perf\n# nThread 1 nGpus 1\n") +
                           "#  Rank  0 Group  0 Pid 10 on a device  0 [0x1b] NVIDIA H100\n"
                           "#Rank  1 Group  0 Pid 11 on a device  1 [0x1c] NVIDIA H100\n"
                           "  Rank  2 Group  0 Pid 12 on a device  2 [0x1d] NVIDIA H100\n"
                           "#  Ranks 3 of 3\n" +
                           kHeader + "1024 256 float none -1 20.0 0.05 0.03 0 20.0 0.05 0.03 0\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "log.txt");
  EXPECT_EQ(log.ranks, 3u);
  EXPECT_EQ(log.program, "all_gather_perf");
  EXPECT_EQ(log.rows.size(), 1u);
  const NcclTestsLog bare = parse_nccl_tests_log(std::string(kHeader) + "8 2 float sum -1 1 0 0 0 1 0 0 0\n", "b");
  EXPECT_EQ(bare.ranks, 0u);
  EXPECT_EQ(bare.program, "");
}

TEST(NcclTestsLog, OlderLayoutWithoutRootAndMpiPrefix) {
  const std::string text =
      "[1,0]<stdout>:#       size         count      type   redop     time   algbw   busbw  #wrong     time   algbw   "
      "busbw  #wrong\n"
      "[1,0]<stdout>:        1024           512  bfloat16     sum    33.80    0.03    0.03       0    28.59    0.04    "
      "0.04       0\n";
  const NcclTestsLog log = parse_nccl_tests_log(text, "old.log");
  ASSERT_EQ(log.rows.size(), 1u);
  EXPECT_EQ(log.rows[0].size, Bytes(1024));
  EXPECT_EQ(log.rows[0].type, "bfloat16");
  EXPECT_DOUBLE_EQ(log.rows[0].out_of_place.time_us, 33.80);
  EXPECT_DOUBLE_EQ(log.rows[0].in_place->time_us, 28.59);
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_nccl_tests_log(text, "bad.log");
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("bad.log: ")) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(NcclTestsLog, MalformedLogsNameFileLineAndField) {
  const std::string header = kHeader;
  expect_error(header + "8 2 float sum -1 abc 0.00 0.00 0 36.09 0.00 0.00 0\n", "line 4: time: 'abc'");
  expect_error(header + "8 2 float sum -1 37.7 0.00 -1 0 36.09 0.00 0.00 0\n", "line 4: busbw: '-1'");
  expect_error(header + "8 2 float sum -1 37.7 0.00\n", "line 4: columns: 7 columns; the header announces 13");
  expect_error(header + "8 2 float sum -1 37.7 0.00 0.00 x 36.09 0.00 0.00 0\n", "line 4: #wrong");
  expect_error(header + "8 -2 float sum -1 37.7 0.00 0.00 0 36.09 0.00 0.00 0\n", "line 4: count");
  expect_error(header + "9999999999999999 2 float sum -1 1 1 1 0 1 1 1 0\n", "above 1 PiB");
  expect_error("8 2 float sum -1 37.7 0.00 0.00 0 36.09 0.00 0.00 0\n", "line 1: header");
  expect_error("hello\nworld\n", "header: no nccl-tests column header");
  expect_error(header, "rows: the nccl-tests log has a column header but no result row");
  expect_error("", "header");
}

}  // namespace
}  // namespace chorus
