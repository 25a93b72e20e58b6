// MSCCL XML size: the predicted size is the written size, and the large-file warning fires above its threshold
// (tested with a small threshold; nothing large is written).
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "chorus/synth/msccl_xml.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

SynthResult ring_all_gather() {
  SynthOptions o;
  o.kind = CollectiveKind::AllGather;
  o.size = Bytes::mib(8);
  o.chunks_per_npu = 2;
  return synthesize(ring(4, LinkParams{Bandwidth::gib_per_s(50), Time::ns(500)}), o);
}

TEST(MscclXmlSize, PredictionIsTheWrittenSize) {
  const SynthResult r = ring_all_gather();
  const MscclXml xml(r, "size");
  const std::string path = testing::TempDir() + "/chorus_msccl_size.xml";
  xml.write(path);
  EXPECT_EQ(std::filesystem::file_size(path), xml.shape().bytes);
  // On a ring every chunk reaches each of the other 3 NPUs by one transfer: 4 * 3 * 2 = 24 transfers, each a send
  // and a receive step (an All-Gather has no reductions, so no nop steps).
  EXPECT_EQ(xml.shape().steps, 48u);
  EXPECT_EQ(xml.shape().ranks, 4u);
  std::ifstream in(path);
  uint64_t steps = 0, blocks = 0;
  for (std::string line; std::getline(in, line);) {
    steps += line.find("<step ") != std::string::npos;
    blocks += line.find("<tb ") != std::string::npos;
  }
  EXPECT_EQ(steps, 48u);
  EXPECT_EQ(blocks, xml.shape().thread_blocks);
  EXPECT_EQ(msccl_xml(r, "size").size(), xml.shape().bytes);
  std::filesystem::remove(path);
}

TEST(MscclXmlSize, WarnsOnlyAboveTheThreshold) {
  const MscclXml xml(ring_all_gather(), "size");
  const uint64_t bytes = xml.shape().bytes;
  EXPECT_FALSE(msccl_size_warning(xml.shape(), bytes).has_value());
  const auto warning = msccl_size_warning(xml.shape(), bytes - 1);
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(warning->find('\n'), std::string::npos);
  for (const char* word : {"48 steps", "4 ranks", "256 steps per thread block", "216 thread blocks per rank"})
    EXPECT_NE(warning->find(word), std::string::npos) << word << " in: " << *warning;
  EXPECT_EQ(kMscclLargeXmlBytes, uint64_t{256} * 1024 * 1024);
}

}  // namespace
}  // namespace chorus
