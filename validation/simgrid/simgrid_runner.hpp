// The SimGrid side of the cross-check: the same flows on the same links, in SimGrid's CM02 flow model.
//
// Every scenario becomes a set of SimGrid hosts (its NPUs), SHARED links (one per chorus link, same bandwidth and
// latency) and explicit one-way routes (chorus's RouteTable route of every flow), all inside one full zone; one
// actor per flow sleeps until the flow's start time and then sends its bytes with Comm::sendto. Scenarios share
// no links, so all of them run in one simulation (a SimGrid Engine can be created once per process).
//
// CM02 divides a link among flows in proportion to 1 / (the flow's route latency): TCP's RTT-unfairness. In
// Mode::kEqualShare every route is padded to the scenario's largest route latency with a private, non-limiting
// link, and each flow is sent that much earlier, so all flows have the same sharing weight (plain max-min, as in
// chorus) while SimGrid still pays the latency before the bandwidth phase; reported times are shifted back.
// Mode::kStockCm02 uses the routes as they are (RTT-weighted max-min).
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "validation/simgrid/scenario.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
class NetZone;
}  // namespace simgrid::s4u

namespace chorus::validation {

enum class Mode { kEqualShare, kStockCm02 };

// Sets SimGrid's network model to plain CM02: no latency/bandwidth factors, no TCP window bound, no
// cross-traffic, no size-dependent weight, fine time precision, full (not lazy) updates. Call before building
// the platform.
void configure_simgrid(simgrid::s4u::Engine& engine);

class SimgridBatch {
 public:
  explicit SimgridBatch(simgrid::s4u::Engine& engine);

  // Adds the scenario's platform and flows; returns a handle for finish().
  size_t add(const Scenario& scenario, Mode mode);
  // Seals the platform, starts one actor per flow and runs the simulation to its end.
  void run();
  // Completion time of every flow of scenario `handle`, in seconds, in the order of scenario.flows.
  const std::vector<double>& finish(size_t handle) const { return finish_[handle]; }

 private:
  struct PendingFlow {
    simgrid::s4u::Host* src;
    simgrid::s4u::Host* dst;
    uint64_t bytes;
    double send_at;  // when the actor calls sendto
    double shift;    // subtracted from the completion time
    double* finish;  // where the completion time goes
  };

  std::vector<simgrid::s4u::Host*> add_hosts(const Scenario& scenario, const std::string& prefix);
  void add_routes(const Scenario& scenario, Mode mode, const std::string& prefix,
                  const std::vector<simgrid::s4u::Host*>& hosts);
  void start_actor(const PendingFlow& flow);

  simgrid::s4u::Engine& engine_;
  simgrid::s4u::NetZone* zone_;
  std::deque<std::vector<double>> finish_;  // a deque: actors hold pointers into it
  std::vector<PendingFlow> pending_;
};

}  // namespace chorus::validation
