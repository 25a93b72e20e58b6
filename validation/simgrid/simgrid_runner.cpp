// Builds the SimGrid platform of each scenario programmatically (s4u) and runs its flows (see simgrid_runner.hpp).
#include "validation/simgrid/simgrid_runner.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>

#include "chorus/topology/route_table.hpp"
#include "validation/simgrid/chorus_runner.hpp"

namespace sg4 = simgrid::s4u;

namespace chorus::validation {

namespace {

// Bandwidth of the latency-padding links: far above any real link, so they never limit a flow.
constexpr double kPadBandwidth = 1e18;

sg4::Link* make_link(sg4::NetZone& zone, const std::string& name, double bandwidth, double latency,
                     sg4::Link::SharingPolicy policy) {
  return zone.create_link(name, bandwidth)->set_latency(latency)->set_sharing_policy(policy)->seal();
}

// One SimGrid SHARED link per chorus link, same bandwidth (bytes/s) and latency (s).
std::vector<sg4::Link*> mirror_links(sg4::NetZone& zone, const Topology& topology, const std::string& prefix) {
  std::vector<sg4::Link*> links;
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const LinkId id{l};
    links.push_back(make_link(zone, fmt::format("{}link{}", prefix, l), topology.link_bandwidth(id).bytes_per_second(),
                              topology.link_latency(id).seconds(), sg4::Link::SharingPolicy::SHARED));
  }
  return links;
}

std::set<std::pair<uint32_t, uint32_t>> distinct_pairs(const Scenario& scenario) {
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const Flow& f : scenario.flows)
    pairs.emplace(f.src, f.dst);
  return pairs;
}

double max_of(const std::vector<double>& values) {
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

}  // namespace

void configure_simgrid(sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/latency-factor:1");
  engine.set_config("network/bandwidth-factor:1");
  engine.set_config("network/TCP-gamma:0");
  engine.set_config("network/weight-S:0");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("surf/precision:1e-12");
  // The default "Lazy" action management of SimGrid 3.32 sometimes keeps a flow's old completion date after other
  // flows join its links (seen on torus3x3_all_to_all: a link carries more than its bandwidth), so recompute all.
  engine.set_config("network/optim:Full");
}

SimgridBatch::SimgridBatch(sg4::Engine& engine) : engine_(engine), zone_(sg4::create_full_zone("crosscheck")) {}

std::vector<sg4::Host*> SimgridBatch::add_hosts(const Scenario& scenario, const std::string& prefix) {
  std::vector<sg4::Host*> hosts;
  for (uint32_t n = 0; n < scenario.topology.npu_count(); ++n)
    hosts.push_back(zone_->create_host(fmt::format("{}npu{}", prefix, n), 1e9)->seal());
  return hosts;
}

void SimgridBatch::add_routes(const Scenario& scenario, Mode mode, const std::string& prefix,
                              const std::vector<sg4::Host*>& hosts) {
  const std::vector<sg4::Link*> links = mirror_links(*zone_, scenario.topology, prefix);
  const RouteTable table(scenario.topology);
  const double max_latency = max_of(route_latencies(scenario));
  for (const auto& [src, dst] : distinct_pairs(scenario)) {
    std::vector<sg4::LinkInRoute> route;
    Time latency = Time::zero();
    for (LinkId l : table.route(NodeId{src}, NodeId{dst})) {
      route.emplace_back(links[l.value]);
      latency += scenario.topology.link_latency(l);
    }
    const double pad = max_latency - latency.seconds();
    if (mode == Mode::kEqualShare && pad > 0) {
      const std::string name = fmt::format("{}pad{}-{}", prefix, src, dst);
      route.emplace_back(make_link(*zone_, name, kPadBandwidth, pad, sg4::Link::SharingPolicy::FATPIPE));
    }
    zone_->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr, route,
                     /*symmetrical=*/false);
  }
}

size_t SimgridBatch::add(const Scenario& scenario, Mode mode) {
  const size_t handle = finish_.size();
  const std::string prefix = fmt::format("s{}.", handle);
  const std::vector<sg4::Host*> hosts = add_hosts(scenario, prefix);
  add_routes(scenario, mode, prefix, hosts);
  std::vector<double>& finish = finish_.emplace_back(scenario.flows.size(), -1.0);
  const std::vector<double> latency = route_latencies(scenario);
  const double max_latency = max_of(latency);
  for (size_t i = 0; i < scenario.flows.size(); ++i) {
    const Flow& f = scenario.flows[i];
    const bool equal = mode == Mode::kEqualShare;
    // Equal share: sent at start + route latency, the padded route pays max_latency, so the bandwidth phase
    // starts at start + route latency + max_latency: chorus's instant shifted by max_latency.
    pending_.push_back(PendingFlow{hosts[f.src], hosts[f.dst], static_cast<uint64_t>(f.bytes),
                                   f.start.seconds() + (equal ? latency[i] : 0.0), equal ? max_latency : 0.0,
                                   &finish[i]});
  }
  return handle;
}

void SimgridBatch::start_actor(const PendingFlow& flow) {
  sg4::Actor::create("flow", flow.src, [flow] {
    sg4::this_actor::sleep_until(flow.send_at);
    sg4::Comm::sendto(flow.src, flow.dst, flow.bytes);
    *flow.finish = sg4::Engine::get_clock() - flow.shift;
  });
}

void SimgridBatch::run() {
  zone_->seal();
  for (const PendingFlow& flow : pending_)
    start_actor(flow);
  engine_.run();
}

}  // namespace chorus::validation
