// A network tier's collective times as a table, for tiers whose collectives do not follow Calculon's ring formula:
// per collective (point-to-point, Reduce-Scatter, All-Gather, All-Reduce, All-to-All; each optional) and group
// size, the time at a few buffer sizes, linear in
// bytes between them and past the last (the last segment's slope: the bandwidth-bound regime), the first time below
// the first. `chorus codesign` fills one per network dimension from NCCL's cost model or a synthesized schedule
// (codesign/dimension_cost.hpp); NetworkTier::op_time reads it.
//
//   CollectiveTable t;
//   t.group_sizes = {2, 4, 8};
//   t.curves[index(Collective::kAllReduce)][2] = {{1e6, 1e9}, {20e-6, 4.5e-3}};   // n = 8: bytes -> seconds
//   double s = t.time(Collective::kAllReduce, 64e6, 8);
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace chorus::llm {

enum class Collective : uint8_t;

// Times at increasing buffer sizes (Calculon's bytes: the whole buffer, All-Gather's gathered output).
struct CollectiveCurve {
  std::vector<double> bytes;
  std::vector<double> seconds;
  double at(double b) const;
};

struct CollectiveTable {
  static constexpr size_t kAllToAll = 4;  // curves' index of the All-to-All, after the four Collective values

  std::string label;                 // "nccl", "synth": what filled it
  std::vector<int64_t> group_sizes;  // increasing, each >= 2
  // [Collective, or kAllToAll][group index]; a kind left empty keeps the tier's formula. All-to-All bytes: one
  // rank's send buffer; point-to-point: the bytes sent to the one peer.
  std::array<std::vector<CollectiveCurve>, 5> curves;

  bool has(Collective op) const;
  bool has_all_to_all() const { return !curves[kAllToAll].empty(); }
  // A group size not tabulated takes the next larger one's curve (the largest when above every size).
  double time(Collective op, double bytes, int64_t n) const;
  double all_to_all(double bytes, int64_t n) const;
};

}  // namespace chorus::llm
