// Fusion marks on Chakra collectives: a COMM_COLL node carrying the attributes
//   fused_op    (string) the fused operator it ends, e.g. "gemv-all-reduce" (src/chorus/fused/operators.hpp)
//   fused_tiles (int)    the tiles of its pipeline, >= 1
// is simulated as the tail of one fused operator with the COMP node it depends on (the runtime's tile pipeline).
// Fusion is legal only when the collective consumes that compute's output and nothing else: exactly one
// dependency, a GPU COMP node. Traces from other tools carry no such attributes and load as before.
//
//   read_fusion_mark(trace_node, file, node);   // fills node.fused_op / fused_tiles
//   check_fusion_marks(graph);                  // after the dependencies are resolved
#pragma once

#include <string>

#include "chorus/chakra/trace.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

inline constexpr const char* kFusedOpAttribute = "fused_op";
inline constexpr const char* kFusedTilesAttribute = "fused_tiles";

// Throws chorus::Error(file, "node <id>: fused_tiles", ...) for a mark on a non-collective node, a tile count
// below 1 or a missing half of the pair.
void read_fusion_mark(const chakra::TraceNode& t, const std::string& file, WorkloadNode& n);

// Throws chorus::Error naming the node when a marked collective depends on anything but one GPU compute node.
void check_fusion_marks(const NpuGraph& g);

}  // namespace chorus
