// Tests of the max-flow solver (max_flow.hpp: highest-label push-relabel after Cherkassky & Goldberg 1997, Dinic as
// the reference). Every flow carries a certificate: capacity feasibility, conservation, and value == capacity of
// the cut found by residual reachability (max-flow min-cut theorem), on random graphs with a fixed seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "chorus/collective/max_flow.hpp"

namespace chorus {
namespace {

constexpr double kEpsilon = 1e-12;
constexpr double kSlack = 1e-9;  // relative: flows are sums of many doubles

struct Network {
  uint32_t nodes = 0;
  std::vector<FlowArc> arcs;
};

// A random multigraph: self-loops, parallel and antiparallel arcs included; capacities whole numbers or fractions
// (normalised to at most 1, as lower_bound.cpp does), sometimes zero.
Network random_network(std::mt19937& rng, uint32_t nodes, uint32_t arcs, bool whole_numbers) {
  std::uniform_int_distribution<uint32_t> node(0, nodes - 1);
  std::uniform_int_distribution<int> whole(0, 8);
  std::uniform_real_distribution<double> fraction(0, 1);
  Network net{nodes, {}};
  for (uint32_t a = 0; a < arcs; ++a) {
    const double capacity = whole_numbers ? whole(rng) / 8.0 : fraction(rng);
    net.arcs.push_back(FlowArc{node(rng), node(rng), capacity});
  }
  return net;
}

// Checks that the solver's flow is a maximum flow and its cut a minimum cut; returns the cut.
std::vector<char> expect_certified(MaxFlow& flow, const Network& net, uint32_t source, uint32_t sink, double value) {
  const double tolerance = kSlack * (1 + value);
  std::vector<double> net_out(net.nodes, 0);
  for (size_t a = 0; a < net.arcs.size(); ++a) {
    const double f = flow.arc_flow(a);
    EXPECT_GE(f, -tolerance) << "arc " << a;
    EXPECT_LE(f, net.arcs[a].capacity + tolerance) << "arc " << a;
    net_out[net.arcs[a].from] += f;
    net_out[net.arcs[a].to] -= f;
  }
  for (uint32_t n = 0; n < net.nodes; ++n) {
    if (n != source && n != sink) {
      EXPECT_NEAR(net_out[n], 0, tolerance) << "conservation at node " << n;
    }
  }
  EXPECT_NEAR(net_out[source], value, tolerance);
  EXPECT_NEAR(net_out[sink], -value, tolerance);

  const std::vector<char> side = flow.source_side();
  EXPECT_TRUE(side[source]);
  EXPECT_FALSE(side[sink]);
  double cut_capacity = 0;
  for (const FlowArc& arc : net.arcs) {
    if (side[arc.from] && !side[arc.to])
      cut_capacity += arc.capacity;
  }
  EXPECT_NEAR(cut_capacity, value, tolerance) << "max-flow value != min-cut capacity";
  return side;
}

TEST(MaxFlow, SmallExampleFromTheHeader) {
  const std::vector<FlowArc> arcs{{0, 1, 1.0}, {1, 2, 0.5}};
  MaxFlow flow(3, arcs, kEpsilon);
  EXPECT_DOUBLE_EQ(flow.run(0, 2), 0.5);
  EXPECT_EQ(flow.source_side(), (std::vector<char>{1, 1, 0}));
  EXPECT_DOUBLE_EQ(flow.arc_flow(0), 0.5);
}

// Push-relabel parks excess at node 1 (it cannot reach the sink) and must return it before the cut is read:
// otherwise node 1 would look unreachable and the reported cut would not be the minimal one.
TEST(MaxFlow, ExcessIsReturnedBeforeTheCutIsRead) {
  const std::vector<FlowArc> arcs{{0, 1, 1.0}, {1, 2, 0.25}, {0, 2, 0.5}};
  MaxFlow flow(3, arcs, kEpsilon);
  EXPECT_DOUBLE_EQ(flow.run(0, 2), 0.75);
  EXPECT_EQ(flow.source_side(), (std::vector<char>{1, 1, 0}));
  EXPECT_DOUBLE_EQ(flow.arc_flow(0), 0.25);
}

TEST(MaxFlow, RandomGraphsCertifiedAndEqualToDinic) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 400; ++trial) {
    const uint32_t nodes = 2 + static_cast<uint32_t>(rng() % 40);
    const uint32_t arcs = static_cast<uint32_t>(rng() % (4 * nodes + 1));
    const Network net = random_network(rng, nodes, arcs, trial % 2 == 0);
    const uint32_t source = static_cast<uint32_t>(rng() % nodes);
    const uint32_t sink = (source + 1 + static_cast<uint32_t>(rng() % (nodes - 1))) % nodes;
    SCOPED_TRACE(testing::Message() << "trial " << trial << ": " << nodes << " nodes, " << arcs << " arcs, " << source
                                    << " -> " << sink);
    MaxFlow push_relabel(nodes, net.arcs, kEpsilon);
    MaxFlow dinic(nodes, net.arcs, kEpsilon, MaxFlowAlgorithm::Dinic);
    const double value = push_relabel.run(source, sink);
    const double reference = dinic.run(source, sink);
    EXPECT_NEAR(value, reference, kSlack * (1 + reference));
    const std::vector<char> side = expect_certified(push_relabel, net, source, sink, value);
    // The fewest-nodes minimum cut is unique, so both solvers must report the same one.
    EXPECT_EQ(side, dinic.source_side());
    expect_certified(dinic, net, source, sink, reference);
  }
}

// The lower bounds' pattern: a super source with an arc of capacity λ to every node, one sink, λ changed between
// runs on the same solver (Dinkelbach). Ring and 2D torus with a few random capacities, as in lower_bound.cpp.
TEST(MaxFlow, SuperSourceRunsMatchDinicAcrossCapacityChanges) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> slow(0.25, 1);
  for (const auto& [width, height] : {std::pair(64u, 1u), std::pair(8u, 8u), std::pair(12u, 5u)}) {
    const uint32_t npus = width * height;
    Network net{npus + 1, {}};
    auto id = [&](uint32_t x, uint32_t y) { return x % width + width * (y % height); };
    for (uint32_t y = 0; y < height; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
        for (const uint32_t next : {id(x + 1, y), id(x, y + 1)}) {
          if (next == id(x, y))
            continue;
          net.arcs.push_back(FlowArc{id(x, y), next, rng() % 4 == 0 ? slow(rng) : 1.0});
          net.arcs.push_back(FlowArc{next, id(x, y), rng() % 4 == 0 ? slow(rng) : 1.0});
        }
      }
    }
    const size_t first_super = net.arcs.size();
    for (uint32_t n = 0; n < npus; ++n)
      net.arcs.push_back(FlowArc{npus, n, 0});
    MaxFlow push_relabel(net.nodes, net.arcs, kEpsilon);
    MaxFlow dinic(net.nodes, net.arcs, kEpsilon, MaxFlowAlgorithm::Dinic);
    for (const double lambda : {4.0 / npus, 1.0 / npus, 0.5, 0.01}) {
      for (const uint32_t sink : {0u, npus / 2, npus - 1}) {
        SCOPED_TRACE(testing::Message() << width << "x" << height << " lambda " << lambda << " sink " << sink);
        for (size_t a = first_super; a < net.arcs.size(); ++a) {
          net.arcs[a].capacity = lambda;
          push_relabel.set_capacity(a, lambda);
          dinic.set_capacity(a, lambda);
        }
        const double value = push_relabel.run(npus, sink);
        const double reference = dinic.run(npus, sink);
        EXPECT_NEAR(value, reference, kSlack * (1 + reference));
        EXPECT_EQ(expect_certified(push_relabel, net, npus, sink, value), dinic.source_side());
      }
    }
  }
}

// move_sink: the lower bounds check sink after sink against one super source, each from the last preflow. Chains
// of sinks on random graphs (some runs stopped early at `enough`) give Dinic's value, and the last one a certified
// flow and the same fewest-nodes minimum cut.
TEST(MaxFlow, MovingTheSinkMatchesFreshRuns) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 60; ++trial) {
    const uint32_t nodes = 3 + static_cast<uint32_t>(rng() % 30);
    const Network net = random_network(rng, nodes, 5 * nodes, trial % 2 == 0);
    MaxFlow moved(nodes, net.arcs, kEpsilon);
    MaxFlow dinic(nodes, net.arcs, kEpsilon, MaxFlowAlgorithm::Dinic);
    const uint32_t source = 0;
    uint32_t sink = 1;
    moved.run(source, sink, trial % 3 == 0 ? 0.1 : std::numeric_limits<double>::infinity());
    for (int step = 0; step < 6; ++step) {
      sink = 1 + static_cast<uint32_t>(rng() % (nodes - 1));
      SCOPED_TRACE(testing::Message() << "trial " << trial << " step " << step << " sink " << sink);
      const double reference = dinic.run(source, sink);
      if (step % 2 == 1 && reference > 0) {
        EXPECT_GE(moved.move_sink(sink, reference / 2), reference / 2);  // stopped early: still a preflow
        continue;
      }
      const double value = moved.move_sink(sink);
      EXPECT_NEAR(value, reference, kSlack * (1 + reference));
    }
    const double value = moved.move_sink(sink);
    EXPECT_EQ(expect_certified(moved, net, source, sink, value), dinic.source_side());
  }
}

TEST(MaxFlow, StopsEarlyOnceEnoughReachesTheSink) {
  std::mt19937 rng(99);
  const Network net = random_network(rng, 30, 150, false);
  MaxFlow flow(net.nodes, net.arcs, kEpsilon);
  const double full = flow.run(0, 29);
  ASSERT_GT(full, 0);
  EXPECT_GE(flow.run(0, 29, full / 2), full / 2);
  EXPECT_NEAR(flow.run(0, 29), full, kSlack);  // a stopped run leaves nothing behind for the next one
}

TEST(MaxFlow, NoPathGivesZeroAndTheReachableSide) {
  const std::vector<FlowArc> arcs{{0, 1, 1.0}, {2, 3, 1.0}, {3, 2, 1.0}};
  MaxFlow flow(4, arcs, kEpsilon);
  EXPECT_EQ(flow.run(0, 3), 0);
  EXPECT_EQ(flow.source_side(), (std::vector<char>{1, 1, 0, 0}));
}

// A long bidirectional ring fed at every node: the case Dinic needed N/2 phases for. Min cut: the sink's two
// in-links (2) plus its own super arc, or all super arcs, whichever is smaller.
TEST(MaxFlow, LongRingFedEverywhereMatchesTheClosedForm) {
  constexpr uint32_t kNodes = 20000;
  Network net{kNodes + 1, {}};
  for (uint32_t n = 0; n < kNodes; ++n) {
    net.arcs.push_back(FlowArc{n, (n + 1) % kNodes, 1.0});
    net.arcs.push_back(FlowArc{(n + 1) % kNodes, n, 1.0});
  }
  for (uint32_t n = 0; n < kNodes; ++n)
    net.arcs.push_back(FlowArc{kNodes, n, 1.5 / kNodes});
  MaxFlow flow(net.nodes, net.arcs, kEpsilon);
  const double value = flow.run(kNodes, 123);
  EXPECT_NEAR(value, 1.5, 1e-9);
  expect_certified(flow, net, kNodes, 123, value);
}

}  // namespace
}  // namespace chorus
