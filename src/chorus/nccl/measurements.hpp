// Measured nccl-tests runs: one setup (machine, nodes, collective, the log's rows) from a validation directory
// (validation/nccl/NAME/{setup.json,log.txt}) or from a log given on the command line, and chorus's error on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/nccl/comm_system.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"

namespace chorus::nccl {

struct MeasuredRun {
  std::string name;  // the directory or log file
  const machine::Machine* machine = nullptr;
  uint32_t nodes = 1;
  uint32_t gpus_per_node = 0;  // 0: the whole node
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string forced_algorithm;  // NCCL_ALGO of the run ("Ring"), empty when the library chose
  int64_t valid_from_bytes = 0;  // rows below this size are noise by the setup's own note (setup.json)
  std::string source;
  std::string hardware;
  NcclTestsLog log;
};

// Reads every directory under `dir` holding a setup.json (sorted by name). Throws chorus::Error naming the file and
// field for a missing or malformed field, an unknown machine, a collective chorus does not know, a log whose rank
// count (its "#  Rank" lines) disagrees with nodes x GPUs per node, and a directory without any setup.
std::vector<MeasuredRun> read_validation_set(const std::string& dir);

// A log given on the command line: the collective from `kind_hint` when set, otherwise from the log's program name
// (all_reduce_perf, ...). Same checks as above.
MeasuredRun read_measured_log(const std::string& path, const machine::Machine& m, uint32_t nodes,
                              std::optional<CollectiveKind> kind_hint);

// The size bands errors are reported in.
enum class SizeBand : uint8_t { kSmall, kLarge };  // < 1 MiB, >= 1 MiB
const char* band_name(SizeBand b);
SizeBand band_of(Bytes size);

// One row's prediction against its measurement (out-of-place columns).
struct RowError {
  Bytes size;
  double measured_busbw = 0;
  double predicted_busbw = 0;
  double measured_time_us = 0;
  double predicted_time_us = 0;
  std::string_view algorithm;
  std::string_view protocol;

  double relative() const { return (predicted_busbw - measured_busbw) / measured_busbw; }
};

// The rows chorus compares (sizes > 0 with a positive measured time), each predicted with `scales`.
std::vector<RowError> compare(const MeasuredRun& run, const Scales& scales);

struct BandErrors {
  double mean_abs[2] = {0, 0};  // per SizeBand, |relative| averaged over rows
  int rows[2] = {0, 0};
};
BandErrors band_errors(const std::vector<RowError>& rows);

}  // namespace chorus::nccl
