// A synthesized algorithm's MSCCL XML read back and run: what the program chorus writes (synth/msccl_xml.hpp)
// computes, checked by chorus's own MSCCL reader (msccl/check.hpp), and how long it takes under the aware model
// (store-and-forward, one message per link at a time) and the flow model (cut-through, links shared max-min fair,
// as a GPU's concurrent thread blocks share its links). Through switches the synthesizer's store-and-forward
// estimate and the program's time differ: the flow model is the one that matches a GPU's sends crossing an
// NVSwitch-like fabric.
//
//   SynthMscclRun run = run_synth_msccl(topology, result, msccl_xml(result, "a"));
//   fmt::print("{} under flow\n", to_string(run.flow));
#pragma once

#include <optional>
#include <string>

#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct SynthMscclRun {
  bool checked = false;  // the reader's semantic check passed (it throws otherwise)
  Time aware, flow;
};

// Whether the XML of `result` can be run on `topology`: MSCCL rank r is NPU r, so the group must be every NPU of
// the topology in order.
bool synth_msccl_runnable(const Topology& topology, const SynthResult& result);

// Reads `xml` back (errors name `file`), checks what it computes and runs it at result.size under both models.
// Throws chorus::Error when the program does not compute the collective, or when !synth_msccl_runnable().
SynthMscclRun run_synth_msccl(const Topology& topology, const SynthResult& result, const std::string& xml,
                              const std::string& file = "msccl.xml");

// The layout to write for a schedule through switches: both layouts (sends into the fabric left to the runtime, or
// ordered as synthesized) are rendered, read back and run under the flow model, and the faster is kept (ties:
// unordered, MSCCL's usual form). Not measured (nullopt runs, unordered kept) when the schedule has no switch, is
// not runnable, or either XML would be larger than `max_bytes`.
struct SynthMscclLayout {
  MscclXmlOptions options;
  std::optional<SynthMscclRun> unordered, ordered;
};
SynthMscclLayout choose_synth_msccl_layout(const Topology& topology, const SynthResult& result,
                                           uint64_t max_bytes = uint64_t{64} << 20);

}  // namespace chorus
