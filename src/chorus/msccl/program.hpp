// MscclProgram: an MSCCL XML algorithm (msccl-tools' "old format", docs/formats.md) held as compact arrays, one
// entry per GPU, thread block and step, so a file of millions of steps costs tens of bytes per step once read.
//
//   <algo name proto nchannels nchunksperloop ngpus coll inplace [outofplace] ...>
//     <gpu id i_chunks o_chunks s_chunks>
//       <tb id send recv chan>
//         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>
//
// Thread blocks of a GPU are stored in id order and steps of a thread block in `s` order; the reader
// (read_msccl.hpp) guarantees both, and that every index below is in range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/collective.hpp"

namespace chorus {

enum class MscclStepType : uint8_t {
  Send,                // s: send srcbuf to the tb's send peer
  Recv,                // r: receive from the recv peer into dstbuf
  RecvCopySend,        // rcs: receive into dstbuf and forward to the send peer
  RecvReduceSend,      // rrs: receive, add srcbuf, forward the sum (not stored)
  RecvReduceCopy,      // rrc: receive, add srcbuf, store the sum in dstbuf
  RecvReduceCopySend,  // rrcs: receive, add srcbuf, store in dstbuf and forward
  Copy,                // cpy: dstbuf = srcbuf, locally
  Reduce,              // re: dstbuf += srcbuf, locally
  Nop,                 // nop: a dependency only
};

enum class MscclBuffer : uint8_t { Input, Output, Scratch };

bool msccl_receives(MscclStepType type);
bool msccl_sends(MscclStepType type);
bool msccl_reduces(MscclStepType type);
const char* msccl_step_name(MscclStepType type);

struct MscclStep {
  MscclStepType type = MscclStepType::Nop;
  MscclBuffer src_buf = MscclBuffer::Input, dst_buf = MscclBuffer::Input;
  uint32_t src_off = 0, dst_off = 0, count = 1;
  int32_t dep_tb = -1, dep_step = -1;  // a step of another tb of the same GPU this one waits for
};

struct MscclThreadBlock {
  int32_t send = -1, recv = -1;  // peer ranks, -1: none
  uint32_t chan = 0;
  uint32_t first_step = 0, step_count = 0;  // into MscclProgram::steps
};

struct MscclGpu {
  uint32_t i_chunks = 0, o_chunks = 0, s_chunks = 0;
  uint32_t first_tb = 0, tb_count = 0;  // into MscclProgram::tbs
};

struct MscclProgram {
  std::string file;  // for errors
  std::string name, proto, coll;
  std::optional<CollectiveKind> kind;  // none: coll="custom" (or another name chorus does not check)
  uint32_t nchannels = 1, nchunksperloop = 1, ngpus = 0;
  bool inplace = false, outofplace = true;
  uint32_t root = 0;  // Broadcast / Reduce (a `root` attribute when present)
  std::vector<MscclGpu> gpus;
  std::vector<MscclThreadBlock> tbs;
  std::vector<MscclStep> steps;

  // Global index of step `s` of thread block `tb` of GPU `gpu`.
  uint32_t step_index(uint32_t gpu, uint32_t tb, uint32_t s) const {
    return tbs[gpus[gpu].first_tb + tb].first_step + s;
  }
};

}  // namespace chorus
