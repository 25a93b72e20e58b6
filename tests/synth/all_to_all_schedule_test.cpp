// The All-to-All list scheduler (synth/all_to_all_schedule.hpp) on hand-built routes: which chunk a link takes
// when several wait (first come; most hops ahead among simultaneous arrivals; the lower route id on full ties),
// and the event queue's heap form (more than 16 distinct hop durations), against times worked out by hand.
#include <vector>

#include <gtest/gtest.h>

#include "chorus/synth/all_to_all_schedule.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

const Bandwidth kBw = Bandwidth::gib_per_s(50);
const LinkParams kLink{kBw, Time::ns(500)};
constexpr int64_t kMiB = int64_t{1} << 20;

uint32_t link(const SynthGraph& g, uint32_t u, uint32_t v) {
  for (uint32_t l : g.out_links(u)) {
    if (g.dst(l) == v)
      return l;
  }
  ADD_FAILURE() << "no link " << u << " -> " << v;
  return 0;
}

// A route along `nodes`, chunk id = its route index, one byte class.
void add_route(const SynthGraph& g, AllToAllRoutes& routes, const std::vector<uint32_t>& nodes,
               uint32_t chunk_class = 0) {
  for (size_t i = 0; i + 1 < nodes.size(); ++i)
    routes.links.push_back(link(g, nodes[i], nodes[i + 1]));
  routes.begin.push_back(static_cast<uint32_t>(routes.links.size()));
  routes.chunk.push_back(routes.size());
  routes.chunk_class.push_back(chunk_class);
}

const AllToAllHop& hop_of(const ListSchedule& s, uint32_t chunk, uint32_t link) {
  for (const AllToAllHop& h : s.hops) {
    if (h.chunk == chunk && h.link == link)
      return h;
  }
  ADD_FAILURE() << "no hop of chunk " << chunk << " on link " << link;
  return s.hops.front();
}

TEST(AllToAllListSchedule, SimultaneousArrivalsGoMostHopsAheadFirst) {
  // 3x3 mesh, center 4 (neighbours 1, 3, 5, 7). Route 0: 1 -> 4 -> 5 (one hop left at 4 -> 5); route 1:
  // 3 -> 4 -> 5 -> 8 (two left). Both reach 4 at tau; route 1 takes 4 -> 5 first: [tau, 2 tau], route 0 waits:
  // [2 tau, 3 tau]; route 1 crosses 5 -> 8 in [2 tau, 3 tau]. Makespan 3 tau, tau = 0.5 us + 1 MiB / 50 GiB/s.
  const SynthGraph g = make_synth_graph(mesh2d(3, 3, kLink, kLink), {});
  AllToAllRoutes routes;
  add_route(g, routes, {1, 4, 5});
  add_route(g, routes, {3, 4, 5, 8});
  const HopDurations durations(g, {kMiB});
  const Time tau = Time::ns(500) + transfer_time(Bytes(kMiB), kBw);
  for (WaitOrder order : {WaitOrder::Fifo, WaitOrder::Critical}) {
    const ListSchedule s = list_schedule(g, routes, durations, order);
    ASSERT_EQ(s.hops.size(), 5u);
    EXPECT_EQ(hop_of(s, 1, link(g, 4, 5)).start, tau);
    EXPECT_EQ(hop_of(s, 0, link(g, 4, 5)).start, tau * 2);
    EXPECT_EQ(hop_of(s, 1, link(g, 5, 8)).start, tau * 2);
    EXPECT_EQ(s.makespan, tau * 3);
  }
}

TEST(AllToAllListSchedule, FirstComeUnderFifoMostAheadUnderCritical) {
  // 3x3 mesh. At 0, routes 0 (4 -> 5, one hop ahead) and 1 (4 -> 5 -> 8, two) wait at 4 -> 5: route 1 goes,
  // [0, tau]. Route 2 (3 -> 4 -> 5 -> 2) reaches 4 -> 5 at tau with two hops ahead. Fifo: route 0, waiting since 0,
  // goes at tau, route 2 at 2 tau and on 5 -> 2 at 3 tau: makespan 4 tau. Critical: route 2 at tau, then 5 -> 2 at
  // 2 tau, route 0 at 2 tau: makespan 3 tau. Routes 3 (7 -> 4 -> 1) and 4 (5 -> 4 -> 1) reach 4 -> 1 together at
  // tau, one hop ahead each: the lower route id first, [tau, 2 tau], then route 4, [2 tau, 3 tau].
  const SynthGraph g = make_synth_graph(mesh2d(3, 3, kLink, kLink), {});
  AllToAllRoutes routes;
  add_route(g, routes, {4, 5});
  add_route(g, routes, {4, 5, 8});
  add_route(g, routes, {3, 4, 5, 2});
  add_route(g, routes, {7, 4, 1});
  add_route(g, routes, {5, 4, 1});
  const HopDurations durations(g, {kMiB});
  const Time tau = Time::ns(500) + transfer_time(Bytes(kMiB), kBw);
  const ListSchedule fifo = list_schedule(g, routes, durations, WaitOrder::Fifo);
  EXPECT_EQ(hop_of(fifo, 1, link(g, 4, 5)).start, Time::zero());
  EXPECT_EQ(hop_of(fifo, 0, link(g, 4, 5)).start, tau);
  EXPECT_EQ(hop_of(fifo, 2, link(g, 4, 5)).start, tau * 2);
  EXPECT_EQ(hop_of(fifo, 2, link(g, 5, 2)).start, tau * 3);
  EXPECT_EQ(hop_of(fifo, 3, link(g, 4, 1)).start, tau);
  EXPECT_EQ(hop_of(fifo, 4, link(g, 4, 1)).start, tau * 2);
  EXPECT_EQ(fifo.makespan, tau * 4);
  const ListSchedule critical = list_schedule(g, routes, durations, WaitOrder::Critical);
  EXPECT_EQ(hop_of(critical, 2, link(g, 4, 5)).start, tau);
  EXPECT_EQ(hop_of(critical, 0, link(g, 4, 5)).start, tau * 2);
  EXPECT_EQ(critical.makespan, tau * 3);
}

TEST(AllToAllListSchedule, ManyDistinctDurationsUseTheHeapAndKeepTimeOrder) {
  // Twenty chunks of 1..20 MiB, all on link 0 -> 1 of a 2-NPU line, arriving together with one hop each: they go
  // in route order back to back, so the makespan is sum_i (0.5 us + i MiB / 50 GiB/s) = 10 us + 210 MiB / 50 GiB/s
  // (20 distinct durations: the event queue's FIFO lanes give way to the heap after 16).
  const SynthGraph g = make_synth_graph(mesh2d(2, 1, kLink, kLink), {});
  AllToAllRoutes routes;
  std::vector<int64_t> bytes;
  for (uint32_t i = 0; i < 20; ++i) {
    bytes.push_back((i + 1) * kMiB);
    add_route(g, routes, {0, 1}, i);
  }
  const HopDurations durations(g, bytes);
  const ListSchedule s = list_schedule(g, routes, durations, WaitOrder::Fifo);
  ASSERT_EQ(s.hops.size(), 20u);
  Time expected_start = Time::zero();
  for (uint32_t i = 0; i < 20; ++i) {
    EXPECT_EQ(s.hops[i].chunk, i);
    EXPECT_EQ(s.hops[i].start, expected_start);
    expected_start = expected_start + Time::ns(500) + transfer_time(Bytes((i + 1) * kMiB), kBw);
  }
  // transfer_time rounds each hop up to a whole ps, so the closed form holds to 20 ps.
  const double closed_ps = 10e6 + 210.0 * kMiB / kBw.bytes_per_second() * 1e12;
  EXPECT_NEAR(static_cast<double>(s.makespan.picoseconds()), closed_ps, 20);
}

}  // namespace
}  // namespace chorus
