// Reading the output of nccl-tests (all_reduce_perf, all_gather_perf, ...): the result table that a measured run
// printed, to set beside chorus's simulated times (`chorus collective --size A:B:xF --compare LOG`).
//
// The format (nccl-tests src/util.cu, writeBenchmarkLine*): '#' lines are comments, among them the column header
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw
//   #wrong #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s) (GB/s)
// then one row per size: size in bytes, count in elements, type, redop, root (missing in older versions), then
// time (us), algbw and busbw (GB/s, 1e9 B/s) and #wrong (a count or N/A), first out-of-place, then in-place.
// Columns after those (per-iteration statistics, timestamps) are ignored, as are lines that are neither comments
// nor rows (NCCL INFO output mixed in) and mpirun's "[1,0]<stdout>:" prefix. The rank lines of the device list
// ("#  Rank  3 Group  0 Pid ...", also without the '#' that rendered markdown drops) are counted, and the first
// program name (all_reduce_perf, ...) anywhere in the log is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

struct NcclTestsMeasurement {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

struct NcclTestsRow {
  Bytes size;
  int64_t count = 0;
  std::string type;
  std::string redop;
  NcclTestsMeasurement out_of_place;
  std::optional<NcclTestsMeasurement> in_place;  // absent when the header has one column group
  size_t line = 0;                               // 1-based line in the log
};

struct NcclTestsLog {
  std::string source;
  std::vector<NcclTestsRow> rows;  // in the order of the log
  uint32_t ranks = 0;              // the "#  Rank  N Group ..." lines (0 when the log lists none)
  std::string program;             // the nccl-tests program the log names ("all_reduce_perf"), or empty

  // The first row of this size, or nullptr.
  const NcclTestsRow* find(Bytes size) const;
};

// Throws chorus::Error(source, "line N: FIELD", ...) for a row whose fields do not parse, and
// chorus::Error(source, "header"/"rows", ...) for a log without the column header or without any row.
NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& source);

// read_text_file + parse_nccl_tests_log.
NcclTestsLog read_nccl_tests_log(const std::string& path);

}  // namespace chorus
