// What-if runs against separate runs on inputs changed by hand: a network file with one dimension's bandwidth
// doubled or latency halved, a system file with the roofline's peak-perf and local-mem-bw doubled; communication
// free against a hand calculation; the same results on one thread and on several; a deadlock propagates.
#include <gtest/gtest.h>

#include "chorus/astra/system_config.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/runtime/what_if.hpp"
#include "chorus/topology/load.hpp"
#include "workload_builder.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

// 2 x 4 NPUs: dimension 0 a ring of 2, dimension 1 a switch of 4 (GiB/s and ns, as ASTRA-sim writes them).
std::string network(const WorkloadBuilder& b, const std::string& name, const std::string& bandwidth,
                    const std::string& latency) {
  return b.file(name, "topology: [ Ring, Switch ]\nnpus_count: [ 2, 4 ]\nbandwidth: [ " + bandwidth +
                          " ]\nlatency: [ " + latency + " ]\n");
}

std::string system_file(const WorkloadBuilder& b, const std::string& name, const std::string& peak,
                        const std::string& mem_bw) {
  return b.file(name, R"({"scheduling-policy": "LIFO", "collective-optimization": "localBWAware",
    "preferred-dataset-splits": 2, "active-chunks-per-dimension": 1, "endpoint-delay": 10,
    "roofline-enabled": 1, "peak-perf": )" +
                          peak + R"(, "local-mem-bw": )" + mem_bw + R"(,
    "all-reduce-implementation": ["ring", "ring"], "reduce-scatter-implementation": ["ring", "ring"],
    "all-gather-implementation": ["ring", "ring"], "all-to-all-implementation": ["direct", "direct"]})");
}

Topology load(const std::string& path) {
  TopologyRequest r;
  r.network_file = path;
  return load_topology(r);
}

// Every NPU: a compute node (2e9 ops on 1e6 bytes under the roofline), then a 1 MiB All-Reduce of all 8 NPUs (both
// dimensions); then NPU 0 sends 64 KiB to NPU 1 (dimension 0).
// `name` keeps the temporary directories of tests that CTest runs in parallel apart.
WorkloadBuilder workload(const std::string& name) {
  WorkloadBuilder b(name, 8);
  for (uint32_t npu = 0; npu < 8; ++npu) {
    chakra::TraceNode& c = b.comp(npu, 1, 5);
    c.num_ops = 2'000'000'000;
    c.tensor_size = 1'000'000;
    b.coll(npu, 2, CommType::AllReduce, 1 << 20, {1});
  }
  b.send(0, 3, 1, 65536, 1, {2});
  b.recv(1, 3, 0, 65536, 1, {2});
  return b;
}

Time finish(const Workload& w, const Topology& t, const RuntimeOptions& o) {
  return run_workload(w, t, o).finish;
}

const WhatIfResult& result(const std::vector<WhatIfResult>& r, const std::string& change) {
  for (const WhatIfResult& x : r) {
    if (x.change == change)
      return x;
  }
  throw std::runtime_error("no what-if " + change);
}

class WhatIfTest : public ::testing::TestWithParam<NetworkModelKind> {};

TEST_P(WhatIfTest, EachRunEqualsARunOnTheInputChangedByHand) {
  const WorkloadBuilder b = workload("what_if_" + to_string(GetParam()));
  const Workload w = load_workload(b.write(), "");
  const Topology base = load(network(b, "base.yml", "50.0, 25.0", "500.0, 1000.0"));
  const AstraSystemConfig sys = load_astra_system(system_file(b, "sys.json", "100", "1000"));
  RuntimeOptions o;
  o.model = GetParam();
  o.system = &sys;
  const std::vector<WhatIf> changes = standard_what_ifs(base);
  ASSERT_EQ(changes.size(), 7u);  // 3 + 2 per dimension
  const std::vector<WhatIfResult> r = run_what_ifs(w, base, o, changes, 3);

  EXPECT_EQ(result(r, "dimension 1 bandwidth x2").finish,
            finish(w, load(network(b, "bw1.yml", "50.0, 50.0", "500.0, 1000.0")), o));
  EXPECT_EQ(result(r, "dimension 0 bandwidth x2").finish,
            finish(w, load(network(b, "bw0.yml", "100.0, 25.0", "500.0, 1000.0")), o));
  EXPECT_EQ(result(r, "dimension 0 latency /2").finish,
            finish(w, load(network(b, "lat0.yml", "50.0, 25.0", "250.0, 1000.0")), o));
  EXPECT_EQ(result(r, "dimension 1 latency /2").finish,
            finish(w, load(network(b, "lat1.yml", "50.0, 25.0", "500.0, 500.0")), o));
  // Communication free: the roofline compute alone. 2e9 ops on 1e6 bytes (2000 ops/byte) at min(1000 GB/s x 2000,
  // 100 TFLOPS) = 100 TFLOPS: 20 us.
  EXPECT_EQ(result(r, "communication free").finish, Time::us(20));
  const Time baseline = finish(w, base, o);
  EXPECT_LT(result(r, "collectives at their lower bound").finish, baseline);
  for (const WhatIfResult& x : r)
    EXPECT_LE(x.finish, baseline) << x.change;
}

// Compute 2x faster halves the compute nodes only: under the roofline it equals doubling peak-perf and local-mem-bw
// for a workload without collectives (the system file's local-mem-bw also prices their reductions), and on replayed
// durations a trace with every duration halved.
TEST(WhatIf, ComputeTwiceFasterEqualsHalvedComputeInputs) {
  WorkloadBuilder b("what_if_compute", 8);
  WorkloadBuilder halved("what_if_compute_halved", 8);
  for (uint32_t npu = 0; npu < 8; ++npu) {
    for (WorkloadBuilder* w : {&b, &halved}) {
      chakra::TraceNode& c = w->comp(npu, 1, w == &b ? 6 : 3);
      c.num_ops = 3'000'000'000;
      c.tensor_size = 1'000'000;
      w->send(npu, 2, (npu + 1) % 8, 65536, 1, {1});
      w->recv(npu, 3, (npu + 7) % 8, 65536, 1, {1});
      w->comp(npu, 4, w == &b ? 4 : 2, {3});
    }
  }
  const Workload w = load_workload(b.write(), "");
  const Topology base = load(network(b, "base.yml", "50.0, 25.0", "500.0, 1000.0"));
  const std::vector<WhatIf> change = {{WhatIfKind::ComputeTwiceFaster}};
  const AstraSystemConfig sys = load_astra_system(system_file(b, "sys.json", "100", "1000"));
  const AstraSystemConfig fast = load_astra_system(system_file(b, "fast.json", "200", "2000"));
  RuntimeOptions roofline;
  roofline.system = &sys;
  RuntimeOptions fast_roofline;
  fast_roofline.system = &fast;
  EXPECT_EQ(run_what_ifs(w, base, roofline, change, 1)[0].finish, finish(w, base, fast_roofline));
  const Workload h = load_workload(halved.write(), "");
  EXPECT_EQ(run_what_ifs(w, base, RuntimeOptions{}, change, 1)[0].finish, finish(h, base, RuntimeOptions{}));
}

INSTANTIATE_TEST_SUITE_P(Models, WhatIfTest,
                         ::testing::Values(NetworkModelKind::Unaware, NetworkModelKind::Aware, NetworkModelKind::Flow),
                         [](const auto& info) { return to_string(info.param); });

TEST(WhatIf, SameResultsOnOneThreadAndOnSeveral) {
  const WorkloadBuilder b = workload("what_if_threads");
  const Workload w = load_workload(b.write(), "");
  const Topology base = load(network(b, "base.yml", "50.0, 25.0", "500.0, 1000.0"));
  RuntimeOptions o;
  o.model = NetworkModelKind::Flow;
  const std::vector<WhatIf> changes = standard_what_ifs(base);
  const std::vector<WhatIfResult> one = run_what_ifs(w, base, o, changes, 1);
  const std::vector<WhatIfResult> four = run_what_ifs(w, base, o, changes, 4);
  ASSERT_EQ(one.size(), four.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].change, changes[i].name());
    EXPECT_EQ(one[i].finish, four[i].finish) << one[i].change;
  }
}

TEST(WhatIf, ADeadlockInAnyRunPropagates) {
  WorkloadBuilder b("what_if_deadlock", 2);
  b.recv(0, 1, 1, 100, 3);  // no matching send
  b.comp(1, 1, 1);
  const Workload w = load_workload(b.write(), "");
  EXPECT_THROW(run_what_ifs(w,
                            load(b.file("r.yml",
                                        "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\n"
                                        "latency: [ 500.0 ]\n")),
                            RuntimeOptions{}, {{WhatIfKind::FreeCommunication}, {WhatIfKind::ComputeTwiceFaster}}, 2),
               DeadlockError);
}

}  // namespace
}  // namespace chorus
