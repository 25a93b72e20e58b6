// MscclDag: an MSCCL program's steps as a dependency graph in one topological order.
//
// - Sends and receives are matched as the MSCCL runtime matches them: the k-th sending step (s, rcs, rrs, rrcs)
//   of GPU a's thread block with send=b on channel c pairs with the k-th receiving step (r, rcs, rrs, rrc, rrcs)
//   of GPU b's thread block with recv=a on channel c.
// - Each step has up to two nodes: node 2i, its local part (the receive of a receiving step, finished when the
//   data has arrived and the step's own predecessors are done; or a local step: cpy, re, nop) and node 2i+1, the
//   transfer a sending step starts. A step waits for the previous step of its thread block and for its depid/deps
//   step; a send is buffered (it does not wait for the receiver), as in NCCL's FIFOs.
// - A cycle (a step that waits, through dependencies and transfers, for itself) or a connection whose two ends
//   disagree on the number of chunks sent is a chorus::Error naming the file and a step.
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/msccl/program.hpp"

namespace chorus {

inline constexpr uint32_t kMscclNone = UINT32_MAX;

struct MscclDag {
  std::vector<uint32_t> from;   // per receiving step: the sending step it receives from
  std::vector<uint32_t> to;     // per sending step: the receiving step it sends to
  std::vector<uint32_t> gpu;    // per step: its GPU
  std::vector<uint32_t> tb;     // per step: its thread block (the id within its GPU)
  std::vector<uint32_t> order;  // node ids (2i: local part of step i, 2i+1: its outgoing transfer), topological
  uint64_t transfers = 0;

  // The node that finishes step i: its transfer when it sends, else its local part.
  static uint32_t done(const MscclProgram& p, uint32_t step) {
    return msccl_sends(p.steps[step].type) ? 2 * step + 1 : 2 * step;
  }
  // The nodes node `n` waits for (at most three), written to out; returns their count.
  uint32_t deps(const MscclProgram& p, uint32_t n, uint32_t out[3]) const;

  std::vector<uint32_t> prev;  // per step: the previous step of its thread block, or kMscclNone
};

MscclDag build_msccl_dag(const MscclProgram& program);

}  // namespace chorus
