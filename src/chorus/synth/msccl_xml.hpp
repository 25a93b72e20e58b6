// MSCCL XML ("old format") for a synthesized collective, following the schema and runtime limits restated in
// shared/reference/tacos.md §3 and §6 (microsoft/msccl src/graph/topo.cc, msccl-tools ir_to_xml):
//
//   <algo name proto="Simple" nchannels nchunksperloop ngpus coll inplace="1" outofplace="0" minBytes maxBytes>
//     <gpu id i_chunks o_chunks s_chunks="0">
//       <tb id send recv chan>   one thread block per (peer, direction, channel)
//         <step s type srcbuf srcoff dstbuf dstoff cnt="1" depid deps hasdep/>
//
// - A transfer is a send step ("s") on the sender's tb towards the receiver and a receive step on the receiver's tb
//   from the sender: "r" for gathered data, "rrc" (receive, reduce with the local partial, store) for reductions.
// - A send waits for the receive that brought its chunk (depid/deps); a step has at most one such dependency, so
//   a send that waits for several partials (a reduction) is preceded by "nop" steps carrying the others.
// - Runtime limits: at most 256 steps per tb (MSCCL_MAX_NUM_STEPS): a link's transfers are split over channels,
//   the same way at both ends; at most 216 tbs per GPU (MSCCL_MAX_NUM_THREAD_BLOCKS): more is a chorus::Error.
// - Buffers are in place: All-Gather chunk j of rank r is output chunk r*k + j ("o"); Reduce-Scatter and
//   All-Reduce work in the input buffer ("i") with the same numbering; Broadcast / Reduce use chunks 0..k-1.
// - Schedules through switches (relays) or multi-hop All-to-All chunks need scratch buffers and are rejected.
#pragma once

#include <string>

#include "chorus/synth/synthesize.hpp"

namespace chorus {

inline constexpr uint32_t kMscclMaxSteps = 256;
inline constexpr uint32_t kMscclMaxThreadBlocks = 216;

std::string msccl_xml(const SynthResult& result, const std::string& name);
void write_msccl_xml(const std::string& path, const SynthResult& result, const std::string& name);

}  // namespace chorus
