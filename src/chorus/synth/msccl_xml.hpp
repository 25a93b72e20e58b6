// MSCCL XML ("old format") for a synthesized collective, following the schema and runtime limits restated in
// shared/reference/tacos.md §3 and §6 (microsoft/msccl src/graph/topo.cc, msccl-tools ir_to_xml):
//
//   <algo name proto="Simple" nchannels nchunksperloop ngpus coll inplace="1" outofplace="0" minBytes maxBytes>
//     <gpu id i_chunks o_chunks s_chunks>
//       <tb id send recv chan>   one thread block per (peer, direction, channel)
//         <step s type srcbuf srcoff dstbuf dstoff cnt="1" depid deps hasdep/>
//
// - A transfer is a send step ("s") on the sender's tb towards the receiver and a receive step on the receiver's tb
//   from the sender: "r" for gathered data, "rrc" (receive, reduce with the local partial, store) for reductions.
// - A send waits for the receive that brought its chunk (depid/deps); a step has at most one such dependency, so
//   a send that waits for several partials (a reduction) is preceded by "nop" steps carrying the others.
// - Runtime limits: at most 256 steps per tb (MSCCL_MAX_NUM_STEPS): a link's transfers are split over channels,
//   the same way at both ends; at most 216 tbs per GPU (MSCCL_MAX_NUM_THREAD_BLOCKS): more is a chorus::Error.
// - Buffers are in place (All-to-All: out of place, below): All-Gather chunk j of rank r is output chunk r*k + j ("o");
// Reduce-Scatter and
//   All-Reduce work in the input buffer ("i") with the same numbering; Broadcast / Reduce use chunks 0..k-1.
// - All-to-All: chunk j from rank s to rank d leaves input chunk d*k + j and lands in output chunk s*k + j; on a
//   multi-hop path every intermediate GPU receives it into a scratch chunk of its own ("s", s_chunks per GPU =
//   the chunks relayed through it) and sends it on from there. Non-uniform demand (alltoallv) is refused: MSCCL
//   cuts buffers into equal chunks.
// - Schedules through switches: every path GPU a -> switch(es) -> GPU b is written as one send at a and one receive
//   at b (switch_collapse.hpp; a switch runs no program, the fabric carries the GPU's send). A multicast at a
//   switch becomes one send per receiving GPU. The runtime limits above apply to the result: through a switch a
//   GPU may exchange chunks with every other GPU, one thread block per peer and direction, 2 (n - 1) in all, so
//   such a schedule of more than 109 GPUs exceeds the 216 thread blocks, and the error says so. The sends a GPU
//   makes into the fabric sit in different thread blocks (one per peer), which MSCCL does not order: the runtime
//   starts them together and they share the GPU's link. MscclXmlOptions::order_switch_sends adds a dependency from
//   each such send to the GPU's previous one in the synthesized order instead; a dependency waits for the previous
//   send to arrive, not to leave, and which of the two layouts runs faster depends on the schedule
//   (sim/synth_msccl.hpp measures both).
// - All-to-All is written out of place (a local "cpy" step moves each GPU's own chunks): in place, a receive into
//   output chunk s*k + j would overwrite the input chunk meant for GPU s before it is sent.
// - Bundled schedules (dimension-wise, SynthResult::bundle_units; a unit id is its buffer chunk): each run of
//   consecutive units of a transfer is one send and one receive step with cnt = the run's length.
// - MscclXml lays the algorithm out once, predicts the file's exact size (every piece is formatted and counted
//   before anything is written) and streams the XML to a file; the text is never held whole in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "chorus/synth/synthesize.hpp"

namespace chorus {

inline constexpr uint32_t kMscclMaxSteps = 256;
inline constexpr uint32_t kMscclMaxThreadBlocks = 216;

// Above this predicted size `chorus synth --out` warns before writing.
inline constexpr uint64_t kMscclLargeXmlBytes = uint64_t{256} << 20;

struct MscclXmlShape {
  uint64_t bytes = 0;  // the exact size of the XML text
  uint64_t steps = 0;  // <step> lines, all ranks
  uint64_t thread_blocks = 0;
  uint64_t max_steps = 0;          // in one thread block
  uint64_t max_thread_blocks = 0;  // on one rank
  uint32_t ranks = 0;
};

class XmlWriter;

struct MscclXmlOptions {
  // Through switches: each GPU's sends into one fabric link wait for one another in the synthesized order.
  bool order_switch_sends = false;
};

class MscclXml {
 public:
  // Throws chorus::Error when the schedule cannot be written (see above).
  MscclXml(const SynthResult& result, std::string name, MscclXmlOptions options = {});
  ~MscclXml();
  const MscclXmlShape& shape() const { return shape_; }
  void write(std::ostream& out) const;
  void write(const std::string& path) const;  // throws chorus::Error(path, Argument{"out"}, ...) when it cannot

 private:
  std::unique_ptr<SynthResult> collapsed_;  // switch paths as GPU-to-GPU transfers, when there are any
  std::unique_ptr<XmlWriter> writer_;
  std::string name_;
  MscclXmlShape shape_;
};

// The whole XML as a string (small cases and tests).
std::string msccl_xml(const SynthResult& result, const std::string& name, MscclXmlOptions options = {});

// One line saying why the XML is large and what MSCCL's runtime allows, when shape.bytes > threshold_bytes.
std::optional<std::string> msccl_size_warning(const MscclXmlShape& shape, uint64_t threshold_bytes);

}  // namespace chorus
