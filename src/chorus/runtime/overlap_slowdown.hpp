// Compute slowed by the communication it overlaps (`chorus sim --overlap-slowdown F`): GPU kernels that run beside
// communication kernels share SMs and HBM bandwidth with them, so while an NPU moves data (a collective after its
// last member arrived, a send until its arrival, a receive once its send left) each of its GPU compute nodes
// progresses at 1 / (1 + F) of its speed. Ends move as communication starts and stops; each move gives the node a
// new version, and the runtime drops completion events of an older version.
//
// Lee et al. 2025 (arXiv:2507.03114) measured an average compute slowdown of 18.9% (at most 40.0%) under overlapped
// communication on A100, H100, MI250 and MI210 with GPT and Llama models: F = 0.19 typical, 0.4 pessimistic.
//
//   OverlapSlowdown s(0.19, npus);
//   const Time end = s.start(npu, node, work, now);       // then: s.comm_begin(npu, now) -> moved ends
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

class OverlapSlowdown {
 public:
  struct Moved {
    uint32_t node = 0;
    Time end;
    uint32_t version = 0;
  };

  OverlapSlowdown(double factor, size_t npus) : factor_(1.0 + factor), npus_(npus) {}

  // A GPU compute node of `work` (its unslowed time) starts on `npu`; returns its end and sets `version`.
  Time start(uint32_t npu, uint32_t node, Time work, Time now, uint32_t& version);
  // Communication on `npu` starts or stops moving data; returns the running compute nodes whose end moved.
  const std::vector<Moved>& comm_begin(uint32_t npu, Time now);
  const std::vector<Moved>& comm_end(uint32_t npu, Time now);
  // Whether a completion event of `version` is the node's current end.
  bool current(uint32_t npu, uint32_t node, uint32_t version) const;
  void finish(uint32_t npu, uint32_t node);

 private:
  struct Running {
    uint32_t node = 0;
    double remaining_ps = 0;  // unslowed work left at `since`
    Time since;
    uint32_t version = 0;
  };
  struct Npu {
    uint32_t active = 0;  // communication nodes moving data
    std::vector<Running> running;
  };

  double rate_divisor(const Npu& n) const { return n.active > 0 ? factor_ : 1.0; }
  Time end_of(const Running& r, double divisor) const;
  const std::vector<Moved>& change(uint32_t npu, Time now, int delta);

  double factor_;
  std::vector<Npu> npus_;
  std::vector<Moved> moved_;
  uint32_t next_version_ = 1;
};

}  // namespace chorus
