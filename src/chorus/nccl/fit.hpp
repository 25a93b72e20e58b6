// Fitting a machine's NCCL scales (comm_system.hpp: intra-node bandwidth, inter-node bandwidth, latency) to measured
// nccl-tests runs: the multipliers that minimise the squared log error of the predicted times, and the errors a
// calibration is reported with (leave one size band out, leave one setup out).
#pragma once

#include <functional>
#include <vector>

#include "chorus/nccl/measurements.hpp"

namespace chorus::nccl {

// Minimises sum over rows of log(predicted time / measured time)^2 by coordinate descent over each multiplier in
// [1/5, 5] (a coarse scan, then golden-section search, in log space) and the per-call overhead in [0, 100] us. A scale
// no row depends on (inter-node bandwidth with one node) stays 1.
Scales fit_scales(const std::vector<MeasuredRun>& runs);

// The runs with only the rows `keep` accepts (a run left without rows is dropped).
std::vector<MeasuredRun> filter_rows(const std::vector<MeasuredRun>& runs,
                                     const std::function<bool(const MeasuredRun&, const NcclTestsRow&)>& keep);

// Mean |busbw error| over all rows of `runs` with `scales`.
double mean_abs_error(const std::vector<MeasuredRun>& runs, const Scales& scales);

}  // namespace chorus::nccl
