// The MSCCL XML reader: hand-written files modelled on msccl-tools' examples (tests/data/msccl/README.md), chorus
// synth's own XML read back, and the structural and semantic errors, each naming the file and the element.
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

const std::string kData = std::string(CHORUS_SOURCE_DIR) + "/tests/data/msccl/";

// 10 GB/s and 1 us per link: a 1,000,000-byte chunk takes 1 us + 100 us = 101 us on one link.
const LinkParams kLink{Bandwidth::gb_per_s(10), Time::us(1)};

Time run(const MscclAlgorithm& a, const Topology& t, Bytes size, NetworkModelKind model) {
  return network_models().get(model).run(msccl_schedule(a, size), t, {}).makespan;
}

// Runs `f` and returns the Error's "source: field" and message, or "" when nothing was thrown.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MscclReader, RingAllReduceRunsUnderEveryModel) {
  const MscclAlgorithm a = load_msccl_algorithm(kData + "allreduce_ring_4.xml");
  EXPECT_TRUE(a.checked);
  EXPECT_EQ(a.program.steps.size(), 28u);  // 4 GPUs x 7 steps
  EXPECT_EQ(a.dag.transfers, 24u);         // each GPU sends 6 times (3 reduce-scatter, 3 all-gather hops)
  // 4 MB in 4 chunks of 1 MB. Every step of a GPU's one thread block waits for the previous one and each hop
  // carries one chunk, so the 6 hops of the ring run back to back: 6 x (1 us + 1 MB / 10 GB/s) = 606 us. Each
  // direction of a link carries one chunk at a time, so the aware and flow models agree.
  const Topology t = ring(4, kLink);
  for (const auto model : {NetworkModelKind::Unaware, NetworkModelKind::Aware, NetworkModelKind::Flow})
    EXPECT_EQ(run(a, t, Bytes(4'000'000), model), Time::us(606)) << to_string(model);
}

TEST(MscclReader, AllPairsAllToAll) {
  const MscclAlgorithm a = load_msccl_algorithm(kData + "alltoall_allpairs_8.xml");
  EXPECT_TRUE(a.checked);
  EXPECT_EQ(a.dag.transfers, 56u);  // 8 x 7 peers
  // 8 MB per GPU, 1 MB per peer; on a fully connected 8-GPU network every pair has its own link, so all 56
  // transfers run at once: 1 us + 1 MB / 10 GB/s = 101 us.
  const Topology t = fully_connected(8, kLink);
  for (const auto model : {NetworkModelKind::Unaware, NetworkModelKind::Aware, NetworkModelKind::Flow})
    EXPECT_EQ(run(a, t, Bytes(8'000'000), model), Time::us(101)) << to_string(model);
  // Through one switch each GPU's uplink carries its 7 chunks one after the other (aware: store-and-forward, one
  // message per link): at least 7 x 101 us up and the last chunk 101 us down, 808 us.
  EXPECT_GE(run(a, switch_star(8, kLink), Bytes(8'000'000), NetworkModelKind::Aware), Time::us(808));
}

TEST(MscclReader, AllPairsAllReduceWithScratchAndDependencies) {
  const MscclAlgorithm a = load_msccl_algorithm(kData + "allreduce_allpairs_4.xml");
  EXPECT_TRUE(a.checked);  // in place: input = output; partial copies in scratch, reduced by `re` steps
  // Two rounds of direct transfers (partials to the owner, sums back), the reductions free: 2 x 101 us.
  EXPECT_EQ(run(a, fully_connected(4, kLink), Bytes(4'000'000), NetworkModelKind::Unaware), Time::us(202));
}

TEST(MscclReader, ChunkBytesFollowTheCollectiveSize) {
  const MscclAlgorithm a = load_msccl_algorithm(kData + "allreduce_ring_4.xml");
  EXPECT_EQ(msccl_chunk_bytes(a.program, Bytes(4'000'000)), Bytes(1'000'000));
  EXPECT_EQ(msccl_chunk_bytes(a.program, Bytes(10)), Bytes(3));  // rounded up
  EXPECT_EQ(msccl_chunk_bytes(a.program, Bytes(1)), Bytes(1));
}

// chorus synth writes MSCCL XML; reading it back gives a program that computes the collective, with one
// transfer per synthesized transfer.
TEST(MscclReader, ReadsWhatChorusSynthWrites) {
  for (const auto kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter, CollectiveKind::AllReduce,
                          CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
    for (const Topology& t : {ring(5, kLink), fully_connected(4, kLink), mesh2d(2, 3, kLink, kLink)}) {
      SynthOptions o;
      o.kind = kind;
      o.size = Bytes(1 << 20);
      o.chunks_per_npu = 2;
      const SynthResult r = synthesize(t, o);
      const MscclAlgorithm a = make_msccl_algorithm(parse_msccl_xml(msccl_xml(r, "rt"), "rt.xml"));
      EXPECT_TRUE(a.checked) << to_string(kind) << " " << t.name();
      EXPECT_EQ(a.dag.transfers, r.schedule.transfer_count()) << to_string(kind) << " " << t.name();
      EXPECT_EQ(a.program.kind, kind);
    }
  }
}

// Sends pair with receives per channel: GPU 0's tb on channel 1 is listed first, and its chunk must still reach the
// receive of GPU 1's channel-1 tb. In place, GPU r's input is output chunks 2r and 2r+1.
TEST(MscclReader, MatchesSendsAndReceivesPerChannel) {
  const std::string xml = R"(<algo coll="allgather" nchunksperloop="4" ngpus="2" nchannels="2" inplace="1"
      outofplace="0"><gpu id="0" i_chunks="2" o_chunks="4">
    <tb id="0" send="1" recv="1" chan="1"><step s="0" type="s" srcbuf="o" srcoff="1"/>
                                          <step s="1" type="r" dstbuf="o" dstoff="3"/></tb>
    <tb id="1" send="1" recv="1" chan="0"><step s="0" type="s" srcbuf="o" srcoff="0"/>
                                          <step s="1" type="r" dstbuf="o" dstoff="2"/></tb></gpu>
   <gpu id="1" i_chunks="2" o_chunks="4">
    <tb id="0" send="0" recv="0" chan="0"><step s="0" type="s" srcbuf="o" srcoff="2"/>
                                          <step s="1" type="r" dstbuf="o" dstoff="DST0"/></tb>
    <tb id="1" send="0" recv="0" chan="1"><step s="0" type="s" srcbuf="o" srcoff="3"/>
                                          <step s="1" type="r" dstbuf="o" dstoff="DST1"/></tb></gpu></algo>)";
  const auto with = [&](const char* dst0, const char* dst1) {
    std::string text = xml;
    text.replace(text.find("DST0"), 4, dst0);
    text.replace(text.find("DST1"), 4, dst1);
    return text;
  };
  const MscclAlgorithm a = make_msccl_algorithm(parse_msccl_xml(with("0", "1"), "chan.xml"));
  EXPECT_TRUE(a.checked);
  EXPECT_EQ(a.dag.transfers, 4u);
  // GPU 1 stores channel 0's chunk (GPU 0's input chunk 0) as output chunk 1: wrong.
  EXPECT_EQ(error_of([&] { make_msccl_algorithm(parse_msccl_xml(with("1", "0"), "chan.xml")); }),
            "chan.xml: gpu 1 output chunk 0: holds input chunk 1 of 1 GPU (0) at the end; allgather needs input "
            "chunk 0 of GPU 0");
}

struct BadFile {
  const char* file;
  const char* where;    // the element and attribute the error must name
  const char* message;  // a piece of the message
};

// Names the parameter by its file in test listings.
void PrintTo(const BadFile& bad, std::ostream* out) {
  *out << bad.file;
}

class MscclBadInput : public ::testing::TestWithParam<BadFile> {};

TEST_P(MscclBadInput, NamesFileAndElement) {
  const BadFile& bad = GetParam();
  const std::string path = kData + "bad/" + bad.file;
  const std::string error = error_of([&] { load_msccl_algorithm(path); });
  EXPECT_NE(error.find(path + ": " + bad.where), std::string::npos) << error;
  EXPECT_NE(error.find(bad.message), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Files, MscclBadInput,
    ::testing::Values(
        BadFile{"dangling_dependency.xml", "gpu 1 tb 0 step 2: depid", "gpu 1 has 1 thread blocks"},
        BadFile{"steps_out_of_order.xml", "gpu 2 tb 0 step 3: s", "is 4; steps of a thread block"},
        BadFile{"buffer_out_of_range.xml", "gpu 3 tb 0 step 3: dstoff", "chunks 4 to 4 of buffer 'o' are out of range"},
        BadFile{"unknown_step_type.xml", "gpu 0 tb 0 step 4: type", "unknown step type 'rcx'"},
        BadFile{"unknown_buffer.xml", "gpu 0 tb 0 step 1: srcbuf", "unknown buffer 'x'"},
        BadFile{"dependency_cycle.xml", "gpu 0 tb", "dependency cycle"},
        BadFile{"unmatched_send.xml", "gpu 2 tb 0: send", "sends 6 times to gpu 3 on channel 0, but gpu 3 receives 5"},
        // gpu 2 forwards chunk 1 without adding its own copy: every GPU ends with the sum over GPUs 0, 1 and 3.
        BadFile{"missing_reduction.xml", "gpu 0 output chunk 1",
                "holds input chunk 1 of 3 GPUs (0,1,3) at the end; allreduce needs input chunk 1 summed over all 4"},
        BadFile{"not_xml.xml", "line 2", "xml syntax error"}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(MscclReader, HeaderAndGpuErrors) {
  const auto parse = [](const std::string& text) {
    return error_of([&] { make_msccl_algorithm(parse_msccl_xml(text, "f.xml")); });
  };
  EXPECT_EQ(parse("<foo/>"), "f.xml: algo: missing; an MSCCL XML file has one <algo> element at the top");
  EXPECT_EQ(parse(R"(<algo nchunksperloop="1" ngpus="2"/>)"), "f.xml: algo: coll: missing");
  EXPECT_EQ(parse(R"(<algo coll="allreduce" nchunksperloop="1" ngpus="two"/>)"),
            "f.xml: algo: ngpus: 'two' is not an integer");
  EXPECT_EQ(
      parse(R"(<algo coll="allreduce" nchunksperloop="1" ngpus="2"><gpu id="0" i_chunks="1" o_chunks="1"/></algo>)"),
      "f.xml: algo: ngpus: is 2, but the file has 1 <gpu> elements");
  EXPECT_EQ(parse(R"(<algo coll="allreduce" nchunksperloop="1" ngpus="1"><gpu id="0" i_chunks="1" o_chunks="1">
                     <tb id="0" send="3" recv="-1" chan="0"/></gpu></algo>)"),
            "f.xml: gpu 0 tb 0: send: is 3; must be -1 to 0");
  // A program that never writes its output (out of place: not even the GPU's own chunk).
  EXPECT_EQ(parse(R"(<algo coll="allgather" nchunksperloop="2" ngpus="2">
                     <gpu id="0" i_chunks="1" o_chunks="2"/><gpu id="1" i_chunks="1" o_chunks="2"/></algo>)"),
            "f.xml: gpu 0 output chunk 0: holds nothing (never written) at the end; allgather needs input chunk 0 "
            "of GPU 0");
  EXPECT_EQ(parse(R"(<algo coll="allgather" nchunksperloop="2" ngpus="2">
                     <gpu id="0" i_chunks="1" o_chunks="3"/><gpu id="1" i_chunks="1" o_chunks="2"/></algo>)"),
            "f.xml: gpu 0: o_chunks: is 3; allgather needs 2 (ngpus x i_chunks)");
}

}  // namespace
}  // namespace chorus
