// SynthOptions as the synthesis tests build them: a collective, a size, chunks per NPU (0: chosen by the search) and
// whether switches multicast (off for MSCCL XML, as with chorus synth --out).
#pragma once

#include <cstdint>

#include "chorus/synth/synthesize.hpp"

namespace chorus {

inline SynthOptions synth_options(CollectiveKind kind, Bytes size, uint32_t chunks, bool multicast = true) {
  SynthOptions o;
  o.kind = kind;
  o.size = size;
  o.chunks_per_npu = chunks;
  o.switches_multicast = multicast;
  return o;
}

}  // namespace chorus
