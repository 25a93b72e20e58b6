// The collective cost of a network dimension whose algorithm is `nccl` or `synth`: a table the planner reads instead
// of Calculon's ring formula (llm/collective_table.hpp), computed once per distinct dimension setting before the
// search, so the search itself stays as fast as with rings.
//
// nccl: NCCL's cost model (nccl/cost_model.hpp) of the machine preset, with the dimension as its links: the first
// dimension is one node of `size` GPUs whose scale-up links carry B / oversubscription (NVLS where the preset's
// NVSwitch has NVLink SHARP); an outer dimension gives every GPU its own node and one NIC of B / oversubscription.
// synth: the schedule chorus synth builds for the group on a switch of its GPUs (links at the tier's bandwidth x
// efficiency, half the tier's latency each, so a GPU-to-GPU crossing costs the tier latency). A synthesized time
// depends only on bytes / bandwidth at a given latency, so each (collective, group size, latency) is synthesized once
// at a reference bandwidth and rescaled for every bandwidth of the template.
//
//   DimensionTables tables(machine, nccl_machine, t, networks, threads);
//   llm::System sys = network_system(machine, t, networks[0], tables);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "chorus/codesign/network_space.hpp"
#include "chorus/collective/collective.hpp"
#include "chorus/llm/collective_table.hpp"
#include "chorus/llm/inputs.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/nccl/comm_system.hpp"

namespace chorus::codesign {

class DimensionTables {
 public:
  DimensionTables() = default;
  // Tables for every nccl or synth dimension setting of `networks`. `nccl_machine`: the machine preset NCCL's model
  // runs on (nullptr: --machine names none, and a template offering nccl is an error naming it). Errors name the
  // template's dimensions[i].algorithms.
  DimensionTables(const llm::System& machine, const machine::Machine* nccl_machine, const NetworkTemplate& t,
                  const std::vector<NetworkPoint>& networks, int threads);

  // The table of dimension `dim` set as `d`; nullptr for ring and switch-reduce. A setting not built in advance
  // (another bandwidth: --refine-bandwidth) is computed here and not kept: NCCL's model again, synth by rescaling
  // the schedules synthesized for the template (its sizes and latency are the template's, only bandwidths vary).
  std::shared_ptr<const llm::CollectiveTable> find(size_t dim, const DimensionSetting& d) const;
  size_t size() const { return tables_.size(); }
  double seconds() const { return seconds_; }  // wall time spent building them

  // One synthesis: a collective of the group of n on a switch at the reference bandwidth.
  struct SynthJob {
    CollectiveKind kind;
    int64_t n;
    int64_t latency_ps;  // per link
    size_t x;            // index into the grid of bytes / bandwidth
    auto operator<=>(const SynthJob&) const = default;
  };

 private:
  using Key = std::tuple<size_t, double, int64_t, double, int>;  // dimension, bandwidth, size, oversubscription, algo
  std::shared_ptr<const llm::CollectiveTable> build(size_t dim, const DimensionSetting& d) const;

  std::map<Key, std::shared_ptr<const llm::CollectiveTable>> tables_;
  std::map<SynthJob, double> synthesized_;  // seconds
  const machine::Machine* nccl_machine_ = nullptr;
  std::string file_;
  int64_t gpus_ = 0;
  std::vector<double> efficiency_;  // per dimension: the tier's (synth links carry bandwidth x efficiency)
  std::vector<double> latency_s_;   // per dimension: the tier's
  double seconds_ = 0;
};

// The machine NCCL's model sees for a whole network, for the simulator engine's --collectives nccl: only a network of
// two nccl dimensions (a node of the first dimension's size and bandwidth, one NIC per GPU at the second's); none
// otherwise (the simulator then simulates the collectives itself).
struct NcclNetwork {
  machine::Machine machine;
  nccl::Scales scales;
};
std::optional<NcclNetwork> nccl_network(const machine::Machine* base, const NetworkPoint& point);

// The machine preset NCCL's model runs on for a --machine value: the preset of that name, or the machine a device
// preset ships in (h100-80gb: dgx-h100); nullptr for a system file or a name of neither.
const machine::Machine* nccl_machine_for(const std::string& machine_option);

}  // namespace chorus::codesign
