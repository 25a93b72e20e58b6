// Size sweeps on the command line (`chorus collective|bound --size 8B:32GiB:x2`): nccl-tests' column layout with
// the lower bound beside each size, or CSV (--csv), or one JSON object per size (--jsonl), measured nccl-tests
// results beside the simulated ones (--compare LOG) and an HTML chart (--report FILE).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/sweep/collective_sweep.hpp"
#include "chorus/sweep/nccl_tests_log.hpp"

namespace chorus::cli {

struct SweepFlags {
  bool csv = false;
  bool jsonl = false;
  std::string compare;  // an nccl-tests log (collective only)
  std::string report;   // an HTML file
};

// --csv, --jsonl, --report; `with_compare` adds --compare.
void add_sweep_flags(CLI::App& command, SweepFlags& flags, bool with_compare);

// Whether the run prints a sweep table: a size range or list, or any sweep flag (one size is a sweep of one).
bool sweep_requested(const std::string& size_text, const SweepFlags& flags);

// Refuses, with a sweep, --json (it prints one object; --jsonl prints one per size) and --link-stats (one file
// per run).
void refuse_single_run_flags(bool json, bool link_stats);

void run_collective_sweep(const Topology& topology, const SweepRequest& request, const SweepFlags& flags);
// The output of a sweep already run (a synthesized one: one synthesis per size).
void print_collective_sweep(const Topology& topology, const SweepRequest& request, const SizeSweep& sweep,
                            const SweepFlags& flags);

// nccl-tests' layout, for tables that put other columns after its first five: the heading and unit lines' prefix,
// a row's prefix (size, count, type, redop, root) as text and as CSV cells, and a number in a column of `width`.
inline constexpr const char* kNcclTestsHeadPrefix = "#       size         count      type   redop    root";
inline constexpr const char* kNcclTestsUnitPrefix = "#        (B)    (elements)                        ";
std::string nccl_tests_row_prefix(const Collective& c);
std::vector<std::string> nccl_tests_csv_prefix(const Collective& c);
std::string nccl_tests_column(double value, int width);

// The measured out-of-place busbw of this collective's size in an nccl-tests log (nullopt: no log, no such size);
// refuses a row whose count or reduction shows another collective.
std::optional<double> measured_busbw_at(const NcclTestsLog* log, const Collective& c);

void run_bound_sweep(const Topology& topology, CollectiveKind kind, const std::vector<Bytes>& sizes,
                     const BoundOptions& options, const SweepFlags& flags);

}  // namespace chorus::cli
