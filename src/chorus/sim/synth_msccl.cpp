// A synthesized algorithm's MSCCL XML read back and run (see synth_msccl.hpp).
#include "chorus/sim/synth_msccl.hpp"

#include "chorus/core/error.hpp"
#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/synth/switch_collapse.hpp"

namespace chorus {

bool synth_msccl_runnable(const Topology& topology, const SynthResult& result) {
  if (result.members.size() != topology.npu_count())
    return false;
  for (uint32_t r = 0; r < result.members.size(); ++r) {
    if (result.members[r] != r)
      return false;
  }
  return true;
}

SynthMscclRun run_synth_msccl(const Topology& topology, const SynthResult& result, const std::string& xml,
                              const std::string& file) {
  if (!synth_msccl_runnable(topology, result))
    throw Error(file, "algo: ngpus", "the group is not every NPU of the topology in order; MSCCL rank r is NPU r");
  const MscclAlgorithm algorithm = make_msccl_algorithm(parse_msccl_xml(xml, file));
  const Schedule schedule = msccl_schedule(algorithm, result.size);
  SynthMscclRun run;
  run.checked = algorithm.checked;
  run.aware = network_models().get(NetworkModelKind::Aware).run(schedule, topology, {}).makespan;
  run.flow = network_models().get(NetworkModelKind::Flow).run(schedule, topology, {}).makespan;
  return run;
}

SynthMscclLayout choose_synth_msccl_layout(const Topology& topology, const SynthResult& result, uint64_t max_bytes) {
  SynthMscclLayout layout;
  if (!passes_through_switches(result) || !synth_msccl_runnable(topology, result))
    return layout;
  const MscclXmlOptions unordered{false}, ordered{true};
  const MscclXml plain(result, "chorus-synth", unordered), chained(result, "chorus-synth", ordered);
  if (plain.shape().bytes > max_bytes || chained.shape().bytes > max_bytes)
    return layout;
  layout.unordered = run_synth_msccl(topology, result, msccl_xml(result, "chorus-synth", unordered));
  layout.ordered = run_synth_msccl(topology, result, msccl_xml(result, "chorus-synth", ordered));
  if (layout.ordered->flow < layout.unordered->flow)
    layout.options = ordered;
  return layout;
}

}  // namespace chorus
