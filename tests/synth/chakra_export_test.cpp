// Synthesized schedules exported as Chakra per-rank traces: every transfer is one send and one matching receive,
// and chorus's own workload runtime, replaying the traces with no per-NPU resource limit on the same network,
// finishes at exactly the synthesizer's estimate (each message crosses one link alone, so the runtime's
// point-to-point cost latency + bytes / bandwidth is the synthesizer's own link time).
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "chorus/chakra/trace.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/synth/chakra_export.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

TEST(SynthChakraExport, TracesReplayToTheSynthesizedTime) {
  const LinkParams link{Bandwidth::gb_per_s(50), Time::us(1)};
  const Topology topology = torus2d(4, 4, link, link);
  SynthOptions options;
  options.kind = CollectiveKind::AllGather;
  options.size = Bytes(16'000'000);
  options.chunks_per_npu = 2;
  const SynthResult result = synthesize(topology, options);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "chorus_synth_chakra";
  std::filesystem::remove_all(dir);
  const std::string prefix = (dir / "all_gather").string();
  write_chakra_schedule(prefix, result, topology);

  // Every transfer appears once as a send on its source and once as a receive on its destination, same tag and size.
  std::map<int64_t, std::pair<int, int>> by_tag;  // tag -> (sends, receives)
  size_t sends = 0;
  for (uint32_t r = 0; r < 16; ++r) {
    const chakra::ChakraTrace t = chakra::read_chakra_trace(prefix + "." + std::to_string(r) + ".et");
    for (const chakra::TraceNode& n : t.nodes) {
      if (n.type == chakra::NodeType::CommSend) {
        ++sends;
        ++by_tag[*n.comm_tag].first;
      } else if (n.type == chakra::NodeType::CommRecv) {
        ++by_tag[*n.comm_tag].second;
      }
    }
  }
  EXPECT_EQ(sends, result.schedule.transfer_count());
  for (const auto& [tag, count] : by_tag)
    EXPECT_EQ(count, std::make_pair(1, 1)) << "tag " << tag;

  RuntimeOptions run;
  run.resource_limits = false;
  run.lower_bounds = false;
  const RunReport report = run_workload(load_workload(prefix, ""), topology, run);
  EXPECT_EQ(report.finish, result.time);
}

}  // namespace
}  // namespace chorus
