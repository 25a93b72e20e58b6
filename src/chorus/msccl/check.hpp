// What an MSCCL program computes, checked against its `coll`: the program is run symbolically in the DAG's
// topological order, each buffer chunk holding "input chunk j summed over a set of GPUs". At the end every output
// chunk must hold what the collective defines (docs/formats.md), e.g. All-Reduce: output chunk j of every GPU is
// input chunk j summed over all GPUs, each once. The first chunk that does not is a chorus::Error naming the file,
// the GPU, the buffer and the chunk.
//
// In-place programs (inplace="1", outofplace="0") alias the buffers as NCCL does: All-Gather's input is the
// GPU's own slice of the output, Reduce-Scatter's output the GPU's slice of the input, otherwise input = output.
// coll="custom" (or a name chorus does not know) is not checked: the function returns false.
#pragma once

#include "chorus/msccl/dag.hpp"
#include "chorus/msccl/program.hpp"

namespace chorus {

// True when checked, false when the collective is not one chorus knows; throws chorus::Error on a violation.
bool check_msccl_semantics(const MscclProgram& program, const MscclDag& dag);

}  // namespace chorus
