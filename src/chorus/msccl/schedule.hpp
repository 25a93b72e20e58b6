// An MSCCL program as chorus's Schedule IR (collective/schedule.hpp), so every network model runs it.
//
// GPU rank r is NPU r of the topology. Each matched send/receive is one transfer of cnt x chunk_bytes from the
// sender to the receiver; each receive, cpy, re and nop is a local step of zero duration that joins what the step
// waits for (dag.hpp). chunk_bytes = ceil(collective size / nchunksperloop), as MSCCL's runtime divides the
// buffer (sizePerMscclChunk = size / nchunksPerLoop).
//
//   MscclAlgorithm a = load_msccl_algorithm("allreduce.xml");     // read, match, order, check semantics
//   Schedule s = msccl_schedule(a, Bytes::mib(64));
#pragma once

#include <string>

#include "chorus/collective/schedule.hpp"
#include "chorus/core/units.hpp"
#include "chorus/msccl/dag.hpp"
#include "chorus/msccl/program.hpp"

namespace chorus {

struct MscclAlgorithm {
  MscclProgram program;
  MscclDag dag;
  bool checked = false;  // semantics verified (false: coll="custom")
};

// Throws chorus::Error naming the file and the element on any structural or semantic error.
MscclAlgorithm load_msccl_algorithm(const std::string& path);
MscclAlgorithm make_msccl_algorithm(MscclProgram program);

// The chunk size for a collective of `size` bytes (at least 1 byte).
Bytes msccl_chunk_bytes(const MscclProgram& program, Bytes size);

Schedule msccl_schedule(const MscclAlgorithm& algorithm, Bytes size);

}  // namespace chorus
