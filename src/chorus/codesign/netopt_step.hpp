// The planner's iteration as netopt's training step (netopt/time_model.hpp): one parallelism on a codesign network
// becomes collectives whose time is `coefficient / B_d` on the dimensions their groups span, compute items, and, for
// overlapped data parallelism, streamed collectives beside a window of backward compute, so that netopt's convex
// program (netopt/optimizer.hpp) can choose per-dimension bandwidths for it.
//
// Each communication class of the planner (TP with its recompute, PP, the pipeline bubble, DP, CP, EP, ZeRO-3
// gathers, and any other bandwidth dependence left in the total) is a sum over tiers of a constant and bytes / B_d
// terms (Calculon's `latency + bytes x factor / (B / o x efficiency)`, summed over collectives; a DP group spread over
// two tiers reduces on both, a PP group sends over the scale-up tier and its own). The coefficient of each tier is
// read off the planner by raising that tier's bandwidth alone: exact for ring and switch-reduce, the local slope for
// nccl and synth tables and for the exposed part of overlapped classes. The constants go to compute.
//
//   PlannerStep p = planner_step(app, machine, t, point, tables, exe);
//   p.step.time_ms(bandwidths) * 1e-3 == the planner's total_time at those bandwidths (ring, no overlap)
#pragma once

#include <string>
#include <vector>

#include "chorus/codesign/network_space.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/netopt/time_model.hpp"

namespace chorus::codesign {

// What each collective of PlannerStep::step stands for.
struct StepCollective {
  std::string group;  // tp, pp, bubble, dp, cp, ep, fsdp, other
  size_t dimension;   // the template dimension (planner tier) it runs on
  double wire_bytes;  // bytes each GPU moves on that dimension per iteration: message bytes x collective factor
  bool streamed;      // overlapped DP: on netopt's communication stream
};

struct PlannerStep {
  netopt::TrainingStep step;           // times in ms, bandwidths in GB/s per GPU (before oversubscription)
  std::vector<StepCollective> labels;  // one per step.collectives
  std::vector<double> reference_gbps;  // the bandwidths the planner was read at (the point's)
  double reference_time_s = 0;         // the planner's iteration there; step.time_ms(reference) matches it
};

// The execution `exe` on `point` (its sizes, oversubscriptions and algorithms fixed; only bandwidths vary) as a
// netopt step. `tables`: as network_system (nccl and synth dimensions).
PlannerStep planner_step(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                         const NetworkPoint& point, const DimensionTables* tables, const llm::Execution& exe);

}  // namespace chorus::codesign
