// simulate_packets(): one Schedule on ns-3, packet by packet: the seam between chorus and ns-3. Nothing of ns-3
// appears here; packet_network.cpp is the one translation unit that includes ns-3's headers.
//
// - Every node of the Topology (NPUs and switches) is an ns-3 node; every directed link is an ns-3
//   point-to-point channel of its bandwidth and latency (its own channel, so the two directions of a cable may
//   differ). Every output port has a queue disc of PacketOptions::queue bytes: drop-tail FIFO, or RED marking
//   ECN when PacketOptions::ecn.
// - Packets follow the routes the other contention models use (ResourceRoutes: the RouteTable's or the
//   synthesizer's links), carried hop by hop in a chorus header; there is no IP layer.
// - Each transfer is one message of kPacketPayload-byte packets sent by a rate-based transport standing in for
//   RoCEv2: paced at line rate from the sender's port (round robin over the messages leaving it), go-back-N on
//   loss (go_back_n.hpp), DCQCN-style rate cuts on congestion notifications (rate_control.hpp). ACKs, NAKs and
//   CNPs travel back after the route's latency, outside the data queues (strict priority, as CNPs are on real
//   fabrics).
// - A transfer finishes when its last packet arrives in order; its dependents then start (after their pre_delay).
//
// ns-3 keeps one simulator per process: the call runs the simulation from start to Simulator::Destroy, and must
// not overlap another call (PacketModel serialises them). Same inputs give the same result.
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/collective/schedule.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/packet/packet_options.hpp"
#include "chorus/network/resource_routes.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct PacketRunResult {
  Time makespan;
  uint64_t events = 0;       // ns-3 events executed
  std::vector<Time> finish;  // per op
  LinkStats links;           // bytes on the wire, time transmitting, most packets waiting in the port's queue
};

// `routes` must name physical links of `topology` (resource r is LinkId r).
PacketRunResult simulate_packets(const Schedule& schedule, const Topology& topology, const ResourceRoutes& routes,
                                 const PacketOptions& options);

}  // namespace chorus
