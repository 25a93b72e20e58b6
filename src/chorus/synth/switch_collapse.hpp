// A synthesized schedule through switches, as GPU-to-GPU transfers (for MSCCL XML, msccl_xml.hpp): a switch is
// not a GPU and runs no program, and on an NVSwitch-like fabric a GPU's send to a peer crosses the switch by
// itself. So every path GPU a -> switch(es) -> GPU b becomes one transfer a -> b of the same chunk, which waits for
// what the path's first hop waited for (the receive that brought the chunk to a, its link order at a) and for
// what its last hop waited for on its own link (the receive order at b).
//
// - A switch that multicasts (All-Gather, Broadcast: one copy in, several out) becomes one send per receiving GPU
//   from the GPU the copy came from: MSCCL has no multicast, so that GPU's uplink carries every copy. On a star the
//   uplinks then carry as many chunks as the downlinks, and the time is unchanged (tested on switch:8).
// - A switch that combined partials would have to reduce, which no MSCCL program can do there; chorus's
//   synthesis never does that (Reduce-Scatter on switches forwards each partial once, synthesize.hpp), and such a
//   schedule is refused with an Error naming the switch.
// - Paths that end at a switch (never forwarded) are dropped; timing (SynthOp) spans the path, first hop's start to
//   last hop's end.
#pragma once

#include "chorus/synth/synthesize.hpp"

namespace chorus {

// Whether some transfer of the schedule starts or ends at a node that is not a member GPU.
bool passes_through_switches(const SynthResult& result);

// The schedule with every switch path replaced as above; members, chunks and sizes unchanged. Throws
// chorus::Error("msccl", "switch", ...) for a switch that combines several copies of a chunk.
SynthResult collapse_switches(const SynthResult& result);

}  // namespace chorus
