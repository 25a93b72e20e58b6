// Compute slowed while communication runs beside it (see overlap_slowdown.hpp).
#include "chorus/runtime/overlap_slowdown.hpp"

#include <algorithm>
#include <cmath>

#include "chorus/core/assert.hpp"

namespace chorus {

Time OverlapSlowdown::end_of(const Running& r, double divisor) const {
  return r.since + Time::ps(std::llround(r.remaining_ps * divisor));
}

Time OverlapSlowdown::start(uint32_t npu, uint32_t node, Time work, Time now, uint32_t& version) {
  Npu& n = npus_[npu];
  n.running.push_back(Running{node, static_cast<double>(work.picoseconds()), now, next_version_++});
  version = n.running.back().version;
  return end_of(n.running.back(), rate_divisor(n));
}

const std::vector<OverlapSlowdown::Moved>& OverlapSlowdown::change(uint32_t npu, Time now, int delta) {
  Npu& n = npus_[npu];
  const double before = rate_divisor(n);
  CHORUS_ASSERT(delta > 0 || n.active > 0, "communication ends on NPU {} with none active", npu);
  n.active = delta > 0 ? n.active + 1 : n.active - 1;
  const double after = rate_divisor(n);
  moved_.clear();
  if (before == after)
    return moved_;
  for (Running& r : n.running) {
    r.remaining_ps = std::max(0.0, r.remaining_ps - static_cast<double>((now - r.since).picoseconds()) / before);
    r.since = now;
    r.version = next_version_++;
    moved_.push_back(Moved{r.node, end_of(r, after), r.version});
  }
  return moved_;
}

const std::vector<OverlapSlowdown::Moved>& OverlapSlowdown::comm_begin(uint32_t npu, Time now) {
  return change(npu, now, +1);
}

const std::vector<OverlapSlowdown::Moved>& OverlapSlowdown::comm_end(uint32_t npu, Time now) {
  return change(npu, now, -1);
}

bool OverlapSlowdown::current(uint32_t npu, uint32_t node, uint32_t version) const {
  const std::vector<Running>& running = npus_[npu].running;
  return std::any_of(running.begin(), running.end(),
                     [&](const Running& r) { return r.node == node && r.version == version; });
}

void OverlapSlowdown::finish(uint32_t npu, uint32_t node) {
  std::vector<Running>& running = npus_[npu].running;
  running.erase(std::remove_if(running.begin(), running.end(), [&](const Running& r) { return r.node == node; }),
                running.end());
}

}  // namespace chorus
