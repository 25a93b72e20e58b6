// Materialized dimension-wise schedules (synth/dimensional.hpp, materialize_dimensional): unit bundles and times
// worked out by hand on mesh2d:2x2 and 2x3, the certificates (check_synthesis) passing on the pipelined and the
// barrier composition and failing on corrupted copies, and pipelined <= barriers <= counted time.
#include <filesystem>
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/synth/dimensional.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/synth_routes.hpp"
#include "chorus/synth/verify.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/synth_options.hpp"

namespace chorus {
namespace {

// 50 GiB/s, 0.5 us: 1 MiB crosses a link in 0.5 us + 1 MiB / 50 GiB/s = 0.5 + 19.53125 = 20.03125 us.
const LinkParams kLink{Bandwidth::gib_per_s(50), Time::ns(500)};
const LinkParams kSlow{Bandwidth::gib_per_s(25), Time::ns(700)};
constexpr int64_t kMiB = int64_t{1} << 20;

// Transfers per bundle size (units carried).
std::map<size_t, int> bundles(const SynthResult& r) {
  std::map<size_t, int> out;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    if (r.schedule.is_transfer(OpId{i}))
      ++out[op_units(r, i).size()];
  }
  return out;
}

// Materializes (pipelined), certifies, and checks the aware model runs it in its time.
SynthResult certified(const Topology& t, CollectiveKind kind, Bytes size, uint32_t chunks) {
  const SynthResult r = materialize_dimensional(t, synth_options(kind, size, chunks));
  const SynthCheck c = check_synthesis(t, r);
  EXPECT_TRUE(c.ok) << to_string(kind) << ": " << c.problem;
  EXPECT_EQ(c.aware_time, r.time) << to_string(kind);
  return r;
}

// mesh2d:2x2, All-Gather of 8 MiB, k = 1: two parts of 4 MiB, a piece (what one NPU contributes to a part) is
// 1 MiB; one unit per piece (L = 1, K = 2 per NPU). Stage 0: 2-NPU lines, each NPU sends its piece (1 unit,
// 20.03125 us); stage 1: each sends its 2 pieces (2 units, 0.5 + 39.0625 = 39.5625 us). 2 parts x 2 lines x 2 per
// stage: 8 transfers of 1 unit, 8 of 2. Every link works in both stages, so pipelining cannot start a stage-1
// transfer earlier: 59.59375 us. Reduce-Scatter is the reversal (2-unit transfers first), same time.
TEST(DimensionalMaterialize, TwoByTwoAllGatherAndReduceScatterByHand) {
  const Topology t = mesh2d(2, 2, kLink, kLink);
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    const SynthResult r = certified(t, kind, Bytes(8 * kMiB), 1);
    EXPECT_EQ(r.chunks_per_npu, 2u);
    EXPECT_EQ(r.chunk_count, 8u);
    EXPECT_EQ(r.chunk_bytes, Bytes(kMiB));
    EXPECT_EQ(r.time, Time::ps(59'593'750));
    EXPECT_EQ(bundles(r), (std::map<size_t, int>{{1, 8}, {2, 8}}));
    EXPECT_EQ(r.schedule.size(), 16u);  // no barrier steps
  }
}

// mesh2d:2x2, All-Reduce of 8 MiB, k = 1: part 0 reduce-scatters 4 MiB on x (each NPU sends the 2 pieces it does
// not keep: 39.5625 us), all-reduces the 2 MiB left on y (a 2-NPU All-Reduce: 1 MiB out and the sum back, 2 x
// 20.03125 us, a local step per piece marking its sum), all-gathers on x (39.5625 us); part 1 the same on y, x, y.
// Time 2 x 39.5625 + 2 x 20.03125 = 119.1875 us = 4 x 0.5 us + 6 MiB / 50 GiB/s. Transfers 4 k X Y (X + Y - 2) =
// 32: 16 of 2 units (RS and AG stages), 16 of 1 (the middle stage) and 8 local steps of 1 unit.
TEST(DimensionalMaterialize, TwoByTwoAllReduceByHand) {
  const Topology t = mesh2d(2, 2, kLink, kLink);
  const SynthResult r = certified(t, CollectiveKind::AllReduce, Bytes(8 * kMiB), 1);
  EXPECT_EQ(r.chunks_per_npu, 2u);
  EXPECT_EQ(r.time, Time::ps(119'187'500));
  EXPECT_EQ(bundles(r), (std::map<size_t, int>{{1, 16}, {2, 16}}));
  EXPECT_EQ(r.schedule.size() - r.schedule.transfer_count(), 8u);
  // All-Reduce numbers units so that every op's units are consecutive (one MSCCL step each).
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const std::span<const uint32_t> u = op_units(r, i);
    EXPECT_EQ(u.back() - u.front() + 1, u.size()) << "op " << i;
  }
}

// mesh2d:2x3 (x has 2 NPUs, y 3), All-Gather of 12 MiB, k = 1: pieces of 1 MiB. Part 0 gathers on x (3 lines, one
// transfer each way, 1 unit, 20.03125 us), then on y (2 paths of 3 NPUs, 2-unit transfers, relays included 6 per
// path); part 1 on y (1 unit), then on x (3 units). A 3-NPU path All-Gather with one chunk per NPU takes 2 transfer
// times (the end NPUs receive 2 chunks over one link). The middle links of the y paths carry part 1's two 1-unit
// transfers and then part 0's two 2-unit ones, one at a time: at least 2 x 20.03125 + 2 x 39.5625 = 119.1875 us,
// which is the counted time (stage 0: max(20.03125, 40.0625); stage 1: max(79.125, 0.5 + 58.59375)), so pipelining
// gains nothing and the time is exactly that. Units: 6 + 12 of 1, 12 of 2, 6 of 3. Reduce-Scatter is the
// reversal: part 0 scatters 3-piece shares on x (59.09375 us) then 1-piece chunks on y (2 x 20.03125), part 1
// 2-piece chunks on y (2 x 39.5625) then 1 piece on x; the middle y links carry 2 x 2 MiB then 2 x 1 MiB: the
// same 119.1875 us and the same bundle sizes.
TEST(DimensionalMaterialize, TwoByThreeAllGatherAndReduceScatterByHand) {
  const Topology t = mesh2d(2, 3, kLink, kLink);
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    const SynthResult r = certified(t, kind, Bytes(12 * kMiB), 1);
    EXPECT_EQ(r.chunk_bytes, Bytes(kMiB));
    EXPECT_EQ(r.time, Time::ps(119'187'500));
    EXPECT_EQ(bundles(r), (std::map<size_t, int>{{1, 18}, {2, 12}, {3, 6}}));
    const DimensionalSynthResult d = synthesize_dimensional(t, synth_options(kind, Bytes(12 * kMiB), 1));
    EXPECT_EQ(d.time, r.time);
  }
}

// Line chunk counts that do not divide the blocks: with 3 chunks per NPU, a stage-1 All-Gather slice of a 2-piece
// block is 2/3 of a piece, so a piece is cut into L = 3 units (K = 2 x 3); with 12 MiB / 2 / 6 = 1 MiB pieces, a
// unit is ceil(1 MiB / 3) = 349,526 bytes and a transfer of 2 units carries 699,051 bytes (the line's
// ceil(2 MiB / 3)), one byte less than 2 units: the rounding the certificate allows.
TEST(DimensionalMaterialize, UnitsRoundUpWhenSlicesDoNotDivide) {
  const Topology t = mesh2d(2, 3, kLink, kLink);
  const SynthResult r = certified(t, CollectiveKind::AllGather, Bytes(12 * kMiB), 3);
  EXPECT_EQ(r.chunks_per_npu, 6u);
  EXPECT_EQ(r.chunk_bytes, Bytes(349'526));
  bool found = false;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    if (op_units(r, i).size() == 2 && r.schedule.bytes(OpId{i}) == Bytes(699'051))
      found = true;
  }
  EXPECT_TRUE(found);
}

// Every collective on meshes, a torus and unequal dimensions: certified, pipelined <= barriers <= counted.
TEST(DimensionalMaterialize, PipelinedIsCertifiedAndNoSlowerThanBarriers) {
  const std::vector<Topology> topologies = {mesh2d(4, 3, kLink, kSlow), torus3d(4, 2, 3, kLink, kSlow, kLink),
                                            mesh2d(3, 3, kLink, kLink)};
  for (const Topology& t : topologies) {
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce}) {
      for (uint32_t k : {1u, 2u, 3u}) {
        const DimensionalSynthResult d = synthesize_dimensional(t, synth_options(kind, Bytes::mib(24), k));
        const SynthResult p = materialize_dimensional(t, d);
        const SynthResult b = materialize_dimensional(t, d, DimensionalComposition::Barriers);
        for (const SynthResult* r : {&p, &b}) {
          const SynthCheck c = check_synthesis(t, *r);
          EXPECT_TRUE(c.ok) << t.name() << " " << to_string(kind) << " k=" << k << ": " << c.problem;
        }
        EXPECT_LE(p.time, b.time) << t.name() << " " << to_string(kind) << " k=" << k;
        EXPECT_LE(b.time, d.time) << t.name() << " " << to_string(kind) << " k=" << k;
      }
    }
  }
}

// A copy of `r` without op `drop` (dependencies on it removed) and without the dependencies keep_dep refuses; an op
// may be re-timed by `retime`.
SynthResult edited(const SynthResult& r, int64_t drop, const std::function<bool(uint32_t, uint32_t)>& keep_dep,
                   const std::function<void(uint32_t, SynthOp&)>& retime = {}) {
  SynthResult out = r;
  out.schedule = Schedule();
  out.ops.clear();
  out.bundle_start = {0};
  out.bundle_units.clear();
  std::vector<int64_t> id(r.schedule.size(), -1);
  std::vector<OpId> deps;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const OpId op{i};
    if (i == drop)
      continue;
    deps.clear();
    for (OpId d : r.schedule.deps(op)) {
      if (id[d.value] >= 0 && keep_dep(i, d.value))
        deps.push_back(OpId{static_cast<uint32_t>(id[d.value])});
    }
    const OpId n = r.schedule.is_transfer(op)
                       ? out.schedule.add_transfer(r.schedule.src(op), r.schedule.dst(op), r.schedule.bytes(op),
                                                   Time::zero(), deps, r.schedule.chunk(op))
                       : out.schedule.add_local(r.schedule.src(op), Time::zero(), deps, r.schedule.chunk(op));
    id[i] = n.value;
    out.ops.push_back(r.ops[i]);
    if (retime)
      retime(i, out.ops.back());
    for (uint32_t u : op_units(r, i))
      out.bundle_units.push_back(u);
    out.bundle_start.push_back(out.bundle_units.size());
  }
  return out;
}

// The dimension (0: x, 1: y) a transfer crosses on a 2D mesh.
uint32_t dimension_of(const Topology& t, const Schedule& s, OpId op) {
  return t.coordinate(s.src(op), 0) != t.coordinate(s.dst(op), 0) ? 0 : 1;
}

// A dependency of a transfer on one that arrived at its sender over the other dimension: a stage's data-level
// dependency on the stage before. Returns {op, dep}.
std::pair<uint32_t, uint32_t> cross_stage_dependency(const Topology& t, const SynthResult& r, bool reduce) {
  const Schedule& s = r.schedule;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (!s.is_transfer(OpId{i}) || r.ops[i].reduce != reduce)
      continue;
    for (OpId d : s.deps(OpId{i})) {
      if (s.is_transfer(d) && s.dst(d) == s.src(OpId{i}) && dimension_of(t, s, d) != dimension_of(t, s, OpId{i}))
        return {i, d.value};
    }
  }
  ADD_FAILURE() << "no cross-stage dependency";
  return {0, 0};
}

TEST(DimensionalMaterialize, CertificateCatchesADroppedDependency) {
  const Topology t = mesh2d(2, 3, kLink, kLink);
  const SynthResult ag = materialize_dimensional(t, synth_options(CollectiveKind::AllGather, Bytes(12 * kMiB), 1));
  const auto [op, dep] = cross_stage_dependency(t, ag, false);
  const SynthCheck c = check_synthesis(t, edited(ag, -1, [&](uint32_t i, uint32_t d) { return i != op || d != dep; }));
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.problem.find("before it holds it"), std::string::npos) << c.problem;
  // A Reduce-Scatter transfer that no longer waits for a partial its sender received in the stage before: that
  // stage's contributions are missing from the sum.
  const SynthResult rs = materialize_dimensional(t, synth_options(CollectiveKind::ReduceScatter, Bytes(12 * kMiB), 1));
  const auto [rop, rdep] = cross_stage_dependency(t, rs, true);
  const SynthCheck rc =
      check_synthesis(t, edited(rs, -1, [&](uint32_t i, uint32_t d) { return i != rop || d != rdep; }));
  EXPECT_FALSE(rc.ok);
  EXPECT_NE(rc.problem.find("contributions"), std::string::npos) << rc.problem;
}

TEST(DimensionalMaterialize, CertificateCatchesADoubleBookedLinkAndADroppedTransfer) {
  const Topology t = mesh2d(2, 2, kLink, kLink);
  const SynthResult r = materialize_dimensional(t, synth_options(CollectiveKind::AllGather, Bytes(8 * kMiB), 1));
  // The last transfer moved onto its link's previous transfer (dependencies dropped so only the link overlaps).
  const uint32_t last = static_cast<uint32_t>(r.schedule.size() - 1);
  uint32_t previous = 0;
  for (uint32_t i = 0; i < last; ++i) {
    if (r.ops[i].link == r.ops[last].link)
      previous = i;
  }
  const auto retime = [&](uint32_t i, SynthOp& x) {
    if (i == last) {
      x.finish = r.ops[previous].start + (x.finish - x.start);
      x.start = r.ops[previous].start;
    }
  };
  const SynthCheck booked = check_synthesis(t, edited(
                                                   r, -1, [&](uint32_t i, uint32_t) { return i != last; }, retime));
  EXPECT_FALSE(booked.ok);
  EXPECT_NE(booked.problem.find("carries two transfers"), std::string::npos) << booked.problem;
  // The last transfer dropped: its receiver never gets the 2 units it carried.
  const SynthCheck dropped = check_synthesis(t, edited(r, last, [](uint32_t, uint32_t) { return true; }));
  EXPECT_FALSE(dropped.ok);
  EXPECT_NE(dropped.problem.find("never receives unit"), std::string::npos) << dropped.problem;
}

// The MSCCL XML of a materialized schedule, read back by chorus's MSCCL reader (which checks the collective's
// semantics symbolically) and run by the aware network model.
Time msccl_time(const Topology& t, const SynthResult& r, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / ("chorus_dim_" + name + ".xml")).string();
  MscclXml(r, "dim").write(path);
  const MscclAlgorithm a = load_msccl_algorithm(path);
  EXPECT_TRUE(a.checked) << name;
  std::filesystem::remove(path);
  return network_models().get(NetworkModelKind::Aware).run(msccl_schedule(a, r.size), t, {}).makespan;
}

// mesh2d:2x2, 8 MiB, k = 1 (the schedules worked out above). All-Reduce units are consecutive, so each transfer is
// one step: the XML runs in the synthesized 119.1875 us. All-Gather's stage-1 transfers carry two pieces that lie
// in two ranks' slices of the in-place buffer: two 1 MiB steps, each paying the 0.5 us latency, and the critical
// path crosses one such transfer: 59.59375 + 0.5 = 60.09375 us.
TEST(DimensionalMaterialize, MscclXmlReadsBackWithItsSemanticsAndRuns) {
  const Topology t = mesh2d(2, 2, kLink, kLink);
  const SynthResult ar = certified(t, CollectiveKind::AllReduce, Bytes(8 * kMiB), 1);
  EXPECT_EQ(msccl_time(t, ar, "ar"), Time::ps(119'187'500));
  const SynthResult ag = certified(t, CollectiveKind::AllGather, Bytes(8 * kMiB), 1);
  EXPECT_EQ(msccl_time(t, ag, "ag"), Time::ps(60'093'750));
  // Larger and uneven cases: semantics checked on read-back; All-Reduce runs in the synthesized time up to MSCCL's
  // chunk rounding (size / nchunksperloop rounded up: under a byte per unit more than the line's bytes, 1e-5 here).
  for (const Topology& u : {mesh2d(4, 3, kLink, kSlow), torus3d(4, 2, 3, kLink, kSlow, kLink)}) {
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce}) {
      for (uint32_t k : {1u, 3u}) {
        const SynthResult r = certified(u, kind, Bytes::mib(24), k);
        const Time x = msccl_time(u, r, to_string(kind));
        EXPECT_GE(x, r.time) << u.name() << " " << to_string(kind) << " k=" << k;
        if (kind == CollectiveKind::AllReduce) {
          EXPECT_LE(static_cast<double>(x.picoseconds()), 1.00001 * static_cast<double>(r.time.picoseconds()))
              << u.name() << " k=" << k;
        }
      }
    }
  }
}

Dimension dim(BlockKind kind, uint32_t size, LinkParams link = kLink) {
  return {kind, size, link.bandwidth, link.latency};
}

// dims:switch2,mesh2 (NPUs 0-3, switches 4 and 5 for the lines {0, 1} and {2, 3}), All-Gather of 8 MiB, k = 1,
// switches not multicasting (as for --out): pieces of 1 MiB. Through a switch a piece takes two store-and-forward
// hops. Part 0 (switch, then mesh): stage 0 each NPU's piece to its partner through the switch, 2 x 20.03125 =
// 40.0625 us; stage 1 its 2 pieces (2 MiB) over the mesh, 39.5625 us. Part 1 (mesh, then switch): 20.03125 us, then
// 2 MiB through the switch, 2 x 39.5625 = 79.125 us. Counted with barriers: 40.0625 + 79.125 = 119.1875 us.
// Pipelined: part 1's stage-1 hop into the switch starts when its mesh piece has arrived (20.03125 us), the uplink
// being free since part 0's hop ended then: into the switch by 59.59375, out by 99.15625 us; part 0's mesh hop
// starts at 40.0625 and ends at 79.625 us. 99.15625 us.
TEST(DimensionalMaterialize, SwitchDimensionByHand) {
  const Topology t = compose({dim(BlockKind::Switch, 2), dim(BlockKind::Mesh, 2)});
  SynthOptions o = synth_options(CollectiveKind::AllGather, Bytes(8 * kMiB), 1);
  o.switches_multicast = false;
  const DimensionalSynthResult d = synthesize_dimensional(t, o);
  EXPECT_EQ(d.time, Time::ps(119'187'500));
  const SynthResult r = materialize_dimensional(t, d);
  EXPECT_EQ(r.time, Time::ps(99'156'250));
  const SynthCheck c = check_synthesis(t, r);
  EXPECT_TRUE(c.ok) << c.problem;
  EXPECT_EQ(c.aware_time, r.time);
  // 2 parts x 2 lines x (2 NPUs x 2 hops through the switch + 2 over the mesh) = 24 transfers; half touch a switch.
  uint32_t via_switch = 0;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const OpId op{i};
    via_switch += r.schedule.is_transfer(op) && (!t.is_npu(r.schedule.src(op)) || !t.is_npu(r.schedule.dst(op)));
  }
  EXPECT_EQ(r.schedule.transfer_count(), 24u);
  EXPECT_EQ(via_switch, 16u);
  EXPECT_EQ(bundles(r), (std::map<size_t, int>{{1, 12}, {2, 12}}));
}

// Switch dimensions in every position, with rings, a fully connected and a mesh dimension: the pipelined and the
// barrier compositions are certified and pipelined <= barriers <= counted; the MSCCL XML (switch paths written as
// GPU-to-GPU sends, switch_collapse.hpp) reads back computing the collective.
TEST(DimensionalMaterialize, SwitchDimensionsAreCertifiedAndWritten) {
  const std::vector<Topology> topologies = {
      compose({dim(BlockKind::Switch, 4), dim(BlockKind::Ring, 4, kSlow)}),
      compose({dim(BlockKind::FullyConnected, 2), dim(BlockKind::Switch, 3, kSlow), dim(BlockKind::Ring, 2)}),
      compose({dim(BlockKind::Switch, 4), dim(BlockKind::Switch, 3)})};
  for (const Topology& t : topologies) {
    for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce}) {
      for (uint32_t k : {1u, 2u, 3u}) {
        SynthOptions o = synth_options(kind, Bytes::mib(12), k);
        o.switches_multicast = false;
        const DimensionalSynthResult d = synthesize_dimensional(t, o);
        const SynthResult p = materialize_dimensional(t, d);
        const SynthResult b = materialize_dimensional(t, d, DimensionalComposition::Barriers);
        const std::string what = t.name() + " " + to_string(kind) + " k=" + std::to_string(k);
        for (const SynthResult* r : {&p, &b}) {
          const SynthCheck c = check_synthesis(t, *r);
          EXPECT_TRUE(c.ok) << what << ": " << c.problem;
          EXPECT_EQ(c.aware_time, r->time) << what;
        }
        EXPECT_LE(p.time, b.time) << what;
        EXPECT_LE(b.time, d.time) << what;
        const std::string path = (std::filesystem::temp_directory_path() / "chorus_dim_switch.xml").string();
        MscclXml(p, "dim").write(path);
        EXPECT_TRUE(load_msccl_algorithm(path).checked) << what;
        std::filesystem::remove(path);
      }
    }
  }
}

TEST(DimensionalMaterialize, RefusesWhatItCannotMaterialize) {
  // 4 k X Y (X + Y - 2) transfers for k = 1 on 64 x 64: 4 x 4096 x 126 = 2,064,384 (fits), k = 4: 8,257,536 > 2^22.
  EXPECT_THROW(
      materialize_dimensional(mesh2d(64, 64, kLink, kLink), synth_options(CollectiveKind::AllReduce, Bytes::gib(1), 4)),
      Error);
}

}  // namespace
}  // namespace chorus
