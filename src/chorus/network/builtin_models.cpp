// The built-in network models (unaware, aware, flow; packet with ns-3) behind the NetworkModel interface, and their
// registration.
#include <memory>

#include "chorus/core/error.hpp"
#include "chorus/network/aware_model.hpp"
#include "chorus/network/flow_model.hpp"
#include "chorus/network/message_cost.hpp"
#include "chorus/network/model_registry.hpp"
#if CHORUS_HAVE_NS3
#include "chorus/network/packet/packet_model.hpp"
#endif
#include "chorus/network/resource_routes.hpp"
#include "chorus/network/symmetric.hpp"
#include "chorus/network/symmetric_contention.hpp"
#include "chorus/network/unaware.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {
namespace {

class UnawareModel final : public NetworkModel {
 public:
  const NetworkModelInfo& info() const override { return info_; }

  NetworkRunResult run(const Schedule& schedule, const Topology& topology,
                       const NetworkRunOptions& options) const override {
    std::unique_ptr<MessageCost> own;
    const MessageCost* cost = options.cost;
    if (cost == nullptr) {
      if (options.astra.enabled() && !topology.is_dimensional())
        throw Error("", Argument{"system"}, "ASTRA-sim compatibility needs a dimensional network (--network FILE.yml)");
      own = make_message_cost(topology, options.astra);
      cost = own.get();
    }
    ScheduleTiming t = run_unaware(schedule, *cost);
    return NetworkRunResult{t.makespan, 0, std::move(t.finish), std::nullopt};
  }

  bool can_run_symmetric(const CollectivePlan& plan, const Topology& topology) const override {
    return can_evaluate_symmetrically(plan, topology);
  }

  NetworkRunResult run_symmetric(const CollectivePlan& plan, const Topology& topology,
                                 const NetworkRunOptions& options) const override {
    const DimensionalCost cost(topology, options.astra);
    return NetworkRunResult{symmetric_collective_time(plan, cost), 0, {}, std::nullopt};
  }

 private:
  NetworkModelInfo info_{NetworkModelKind::Unaware,
                         "unaware",
                         "every message takes its alpha-beta time, no contention (ASTRA-sim analytical)",
                         false,
                         false,
                         false};
};

// Aware and flow share everything but the engine: physical routes, link statistics, the symmetric evaluator.
class ContentionModel final : public NetworkModel {
 public:
  explicit ContentionModel(NetworkModelInfo info) : info_(info) {}
  const NetworkModelInfo& info() const override { return info_; }

  NetworkRunResult run(const Schedule& schedule, const Topology& topology,
                       const NetworkRunOptions& options) const override {
    if (options.routes != nullptr)
      return engine(schedule, *options.routes, options);
    const RouteTable table(topology);
    return engine(schedule, PhysicalRoutes(schedule, table), options);
  }

  bool can_run_symmetric(const CollectivePlan& plan, const Topology& topology) const override {
    return can_simulate_contention_symmetrically(plan, topology);
  }

  NetworkRunResult run_symmetric(const CollectivePlan& plan, const Topology& topology,
                                 const NetworkRunOptions& options) const override {
    const ContentionDiscipline d =
        info_.fair_sharing ? ContentionDiscipline::MaxMinFair : ContentionDiscipline::StoreAndForward;
    SymmetricContentionResult r = simulate_symmetric_contention(plan, topology, d, options.astra);
    NetworkRunResult result{r.makespan, r.events, {}, std::nullopt};
    if (options.collect_link_stats)
      result.links = std::move(r.links);
    return result;
  }

 private:
  NetworkRunResult engine(const Schedule& schedule, const ResourceRoutes& routes,
                          const NetworkRunOptions& options) const {
    if (info_.fair_sharing) {
      FlowRunResult r = run_flow(schedule, routes);
      return pack(r.makespan, r.events, std::move(r.finish), std::move(r.links), options);
    }
    AwareRunResult r = run_aware(schedule, routes, options.astra);
    return pack(r.makespan, r.events, std::move(r.finish), std::move(r.links), options);
  }

  static NetworkRunResult pack(Time makespan, uint64_t events, std::vector<Time>&& finish, LinkStats&& links,
                               const NetworkRunOptions& options) {
    NetworkRunResult result{makespan, events, std::move(finish), std::nullopt};
    if (options.collect_link_stats)
      result.links = std::move(links);
    return result;
  }

  NetworkModelInfo info_;
};

}  // namespace

void register_builtin_models(NetworkModelRegistry& registry) {
  registry.add(std::make_unique<UnawareModel>());
  registry.add(std::make_unique<ContentionModel>(NetworkModelInfo{
      NetworkModelKind::Aware, "aware",
      "store-and-forward, one message per link at a time, FIFO (ASTRA-sim congestion-aware)", true, true, false}));
  registry.add(std::make_unique<ContentionModel>(
      NetworkModelInfo{NetworkModelKind::Flow, "flow",
                       "links shared max-min fairly among the flows crossing them, any topology", true, true, true}));
#if CHORUS_HAVE_NS3
  registry.add(make_packet_model());  // only when CMake found ns-3 (CHORUS_WITH_NS3)
#endif
}

}  // namespace chorus
