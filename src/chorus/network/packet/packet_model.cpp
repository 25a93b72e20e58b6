// The `packet` model behind the NetworkModel interface (see packet_model.hpp); ns-3 is in its plugin
// (packet_plugin.hpp).
#include "chorus/network/packet/packet_model.hpp"

#include <mutex>

#include "chorus/core/error.hpp"
#include "chorus/network/packet/packet_plugin.hpp"
#include "chorus/network/resource_routes.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {
namespace {

class PacketModel final : public NetworkModel {
 public:
  const NetworkModelInfo& info() const override { return info_; }

  NetworkRunResult run(const Schedule& schedule, const Topology& topology,
                       const NetworkRunOptions& options) const override {
    // As under flow, ASTRA-sim's whole-ns rounding (options.astra) does not apply: packets keep picoseconds.
    // ns-3's Simulator is one per process: one run at a time, from start to Simulator::Destroy.
    // ns-3 itself is in the plugin, loaded on the first run.
    const PacketPlugin& ns3 = load_plugin<PacketPlugin>(kPacketPlugin);
    const std::lock_guard<std::mutex> lock(mutex_);
    PacketRunResult r = [&] {
      if (options.routes != nullptr)
        return ns3.simulate(schedule, topology, *options.routes, options.packet);
      const RouteTable table(topology);
      return ns3.simulate(schedule, topology, PhysicalRoutes(schedule, table), options.packet);
    }();
    NetworkRunResult result{r.makespan, r.events, std::move(r.finish), std::nullopt};
    if (options.collect_link_stats)
      result.links = std::move(r.links);
    return result;
  }

  // Packets have no symmetric shortcut: every NPU's packets are simulated.
  bool can_run_symmetric(const CollectivePlan& /*plan*/, const Topology& /*topology*/) const override { return false; }
  NetworkRunResult run_symmetric(const CollectivePlan& /*plan*/, const Topology& /*topology*/,
                                 const NetworkRunOptions& /*options*/) const override {
    throw Error("", Argument{"evaluation"}, "the packet model has no symmetric evaluation");
  }

 private:
  NetworkModelInfo info_{NetworkModelKind::Packet,
                         "packet",
                         "packets on ns-3: drop-tail or RED/ECN switch queues (--queue, --ecn), RoCE-like transport",
                         true,
                         true,
                         false};
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<NetworkModel> make_packet_model() {
  return std::make_unique<PacketModel>();
}

}  // namespace chorus
