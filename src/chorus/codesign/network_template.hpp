// The network template of `chorus codesign`: the dimensions of a network (scale-up domain, rails, spine, ...) and,
// per dimension, which of bandwidth, domain size, oversubscription and collective algorithm the search may choose,
// with their values and the default network a user would otherwise buy.
//
//   dimensions:
//     - name: nvlink
//       size: {values: [8, 16, 32], default: 8}          # GPUs per domain of this dimension
//       bandwidth_GBps: {values: [450, 900], default: 450} # per GPU, each direction, GB = 1e9 B
//       algorithms: [ring, switch-reduce]                 # the first is the default
//     - name: scale-out
//       size: all                                          # the last dimension spans every GPU
//       bandwidth_GBps: {min: 25, max: 200, factor: 2, default: 50}
//       oversubscription: {values: [1, 2], default: 1}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace chorus::codesign {

// A parameter's values; a fixed parameter has one. default_index points into values.
struct Choice {
  std::vector<double> values;
  size_t default_index = 0;
  double default_value() const { return values[default_index]; }
};

// How a dimension runs its collectives. ring: Calculon's ring factors (All-Reduce 2(n-1)/n of the bytes per GPU,
// Reduce-Scatter and All-Gather (n-1)/n). switch-reduce: the switch reduces (NVLink SHARP / InfiniBand SHARP), so an
// All-Reduce moves the bytes once in each direction (factor 1); the others as ring. nccl: NCCL's cost model picks the
// algorithm and protocol per collective, group size and message size (Ring, Tree, NVLS, ...); synth: a schedule
// synthesized on a switch of the group's GPUs (chorus synth). Both are tables (dimension_tables.hpp).
enum class Algorithm : uint8_t { kRing, kSwitchReduce, kNccl, kSynth };
const char* to_string(Algorithm a);
// Whether the dimension's switches must reduce in the network, which the cost file prices with its premium:
// switch-reduce, and nccl on the first dimension (NCCL runs NVLS there on an NVSwitch with NVLink SHARP).
bool reduces_in_switch(Algorithm a, size_t dimension);

// synth is offered on domains of at most this many GPUs: synthesizing an All-Reduce on a switch of 32 takes about a
// second per message size, one of 64 about 15 s (docs/codesign.md).
inline constexpr int64_t kMaxSynthDomain = 32;

struct DimensionTemplate {
  std::string name;
  Choice bandwidth_gbps;  // per GPU and direction
  Choice size;            // GPUs per domain; ignored when size_all
  bool size_all = false;  // the domain is every GPU of the job
  Choice oversubscription;
  std::vector<Algorithm> algorithms;  // the first is the default
  std::optional<double> latency_s;    // default: the machine preset's tier
  std::optional<double> efficiency;
};

struct NetworkTemplate {
  std::string file;
  std::string name;
  std::vector<DimensionTemplate> dimensions;
  // Network points of the product of every dimension's choices (before any budget).
  uint64_t point_count() const;
};

// Reads and checks a template; every error names the file and the field. A template whose parameters are all fixed
// (one network only) is an error: there is nothing to co-design.
NetworkTemplate load_network_template(const std::string& path);

// Checks that the template can hold `gpus` GPUs: the last dimension must span every GPU (size all, or a size >= gpus)
// and no domain may be larger than the job. A synth dimension's domain may hold at most kMaxSynthDomain GPUs.
void check_template_holds(const NetworkTemplate& t, int64_t gpus);

}  // namespace chorus::codesign
