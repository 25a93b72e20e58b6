// Readers of LIBRA's input files (astra-sim/libra, `inputs/`), accepted unchanged:
//
// - network:      Topology: [Ring, FullyConnected, Ring, Switch]   # building block per dimension, dim 0 first
//                 NpusCount: [4, 8, 4, 32]
//                 CostDimension: [InterChiplet, InterPackage, InterNode, InterPod]   # keys of the cost model
// - cost model:   InterPod: {Link: 7.80004, Switch: 18.00004, Nic: 31.60004}         # $ per GB/s
// - workload:     ASTRA-sim 1.0 layer text, 12 fields per line (an optional "DATA"/"HYBRID_..." header line and
//                 layer-count line are skipped):
//                 name reserved fwd_ns fwd_type fwd_bytes ig_ns ig_type ig_bytes wg_ns wg_type wg_bytes update_ns
// - communicator: Forward / InputGrad / WeightGrad: [4, 4, -1, -1]  # group size per dimension, -1 = not involved
//
// Every reader throws chorus::Error(path, key, message) naming the offending key or line, and rejects unknown
// keys and fields, because a silently ignored typo would yield a plausible but wrong design.
//
//   NetworkShape net = load_libra_network("4d_network.yml");
//   Communicator comm = load_communicator("GPT_3_4d.yml", net);   // checks the groups fit net's dimensions
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus::netopt {

// The most NPUs a network may have (and the largest dimension or group), as the readers enforce it.
constexpr uint64_t kMaxNpus = uint64_t{1} << 24;

struct NetworkShape {
  std::vector<BlockKind> blocks;  // Ring, FullyConnected or Switch
  std::vector<uint32_t> sizes;    // NPUs per dimension, each >= 2
  std::vector<std::string> cost_dimensions;
  size_t dimension_count() const { return sizes.size(); }
  uint64_t npu_count() const;
};

struct CostEntry {
  double link = 0;                // $ per GB/s of link bandwidth
  std::optional<double> switch_;  // $ per GB/s of switch port bandwidth
  std::optional<double> nic;      // $ per GB/s of NIC bandwidth
};

using CostModel = std::map<std::string, CostEntry>;

// One collective of a layer; `kind` is empty for NONE.
struct LayerCollective {
  std::optional<CollectiveKind> kind;
  double bytes = 0;
};

struct Layer {
  std::string name;
  double forward_ns = 0, input_grad_ns = 0, weight_grad_ns = 0, update_ns = 0;
  LayerCollective forward, input_grad, weight_grad;
};

struct Workload {
  std::vector<Layer> layers;
};

enum class Phase { Forward, InputGrad, WeightGrad };

// Group size per dimension for each phase; 1 where the dimension is not involved (LIBRA writes -1).
struct Communicator {
  std::array<std::vector<uint32_t>, 3> groups;
  const std::vector<uint32_t>& of(Phase phase) const { return groups[static_cast<size_t>(phase)]; }
};

NetworkShape load_libra_network(const std::string& path);
CostModel load_cost_model(const std::string& path);
Workload load_workload(const std::string& path);
// Checks that the groups have one entry per dimension of `network` and that each divides the dimension.
Communicator load_communicator(const std::string& path, const NetworkShape& network);
// The same checks for a communicator built in code (sweeps); `source` names it in errors.
void check_communicator(const Communicator& comm, const NetworkShape& network, const std::string& source);

// "Ring" / "FullyConnected" / "Switch" (LIBRA's spellings); nullopt otherwise.
std::optional<BlockKind> parse_block(const std::string& name);

}  // namespace chorus::netopt
