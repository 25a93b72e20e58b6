// NetworkModel: the one interface every network model (unaware, aware, flow, packet) implements.
//
// A model times a Schedule on a Topology and returns a NetworkRunResult; a model that can also evaluate a
// hierarchical plan symmetrically (one representative NPU, see symmetric.hpp and symmetric_contention.hpp) says
// so. Callers (sim/, runtime/, apps/, bench/) look a model up in the registry (model_registry.hpp) and never
// switch on its kind: capabilities are in NetworkModelInfo.
//
//   const NetworkModel& m = network_models().get(NetworkModelKind::Flow);
//   NetworkRunResult r = m.run(schedule, topology, {});
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/collective/hierarchical.hpp"
#include "chorus/collective/schedule.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/packet/packet_options.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

class MessageCost;
class ResourceRoutes;

// The built-in models. A new model adds one enumerator here and one line to register_builtin_models().
enum class NetworkModelKind : uint8_t { Unaware, Aware, Flow, Packet };

struct NetworkModelInfo {
  NetworkModelKind kind;
  std::string_view name;         // what --model takes
  std::string_view description;  // one line, shown by --help
  bool contention = false;       // messages compete for links (unlike the alpha-beta unaware model)
  bool link_stats = false;       // reports per-link statistics
  bool fair_sharing = false;     // concurrent messages share a link's bandwidth (collective-level --contention)
};

struct NetworkRunOptions {
  // ASTRA-sim compatibility: whole-ns rounding (DimensionalCost for unaware, per hop for aware).
  AstraCompat astra;
  bool collect_link_stats = false;
  // Where messages go. Null: the model's default (the topology's RouteTable routes; for unaware,
  // make_message_cost()). The synthesizer passes its own link assignment here.
  const ResourceRoutes* routes = nullptr;
  const MessageCost* cost = nullptr;
  // The packet model's switch queues (--queue, --ecn); the other models ignore them.
  PacketOptions packet;
};

struct NetworkRunResult {
  Time makespan;
  uint64_t events = 0;             // events processed by an event-driven model (0 for unaware)
  std::vector<Time> finish;        // per op of the schedule (empty for a symmetric evaluation)
  std::optional<LinkStats> links;  // per physical link, when asked for and the model has them
};

class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  virtual const NetworkModelInfo& info() const = 0;
  virtual NetworkRunResult run(const Schedule& schedule, const Topology& topology,
                               const NetworkRunOptions& options) const = 0;
  // Whether run_symmetric() applies to this plan; evaluating one NPU's program gives the same time as run().
  virtual bool can_run_symmetric(const CollectivePlan& plan, const Topology& topology) const = 0;
  virtual NetworkRunResult run_symmetric(const CollectivePlan& plan, const Topology& topology,
                                         const NetworkRunOptions& options) const = 0;
};

}  // namespace chorus
