// Runs a scenario through chorus's flow model: one transfer per flow, no dependencies, pre_delay = start time.
#include "validation/simgrid/chorus_runner.hpp"

#include "chorus/collective/schedule.hpp"
#include "chorus/network/flow_model.hpp"
#include "chorus/network/resource_routes.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus::validation {

namespace {

Schedule flows_to_schedule(const Scenario& scenario) {
  Schedule schedule;
  for (const Flow& f : scenario.flows)
    schedule.add_transfer(NodeId{f.src}, NodeId{f.dst}, Bytes(f.bytes), f.start, {}, /*chunk=*/0);
  return schedule;
}

}  // namespace

std::vector<double> run_chorus(const Scenario& scenario) {
  const Schedule schedule = flows_to_schedule(scenario);
  const RouteTable table(scenario.topology);
  const FlowRunResult result = run_flow(schedule, PhysicalRoutes(schedule, table));
  std::vector<double> finish;
  for (size_t op = 0; op < schedule.size(); ++op)
    finish.push_back(result.finish[op].seconds());
  return finish;
}

std::vector<double> route_latencies(const Scenario& scenario) {
  const RouteTable table(scenario.topology);
  std::vector<double> latencies;
  for (const Flow& f : scenario.flows) {
    Time total = Time::zero();
    for (LinkId l : table.route(NodeId{f.src}, NodeId{f.dst}))
      total += scenario.topology.link_latency(l);
    latencies.push_back(total.seconds());
  }
  return latencies;
}

}  // namespace chorus::validation
