// MSCCL program -> Schedule (see schedule.hpp).
#include "chorus/msccl/schedule.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/msccl/check.hpp"
#include "chorus/msccl/read_msccl.hpp"

namespace chorus {

MscclAlgorithm make_msccl_algorithm(MscclProgram program) {
  MscclAlgorithm a{std::move(program), {}, false};
  a.dag = build_msccl_dag(a.program);
  a.checked = check_msccl_semantics(a.program, a.dag);
  return a;
}

MscclAlgorithm load_msccl_algorithm(const std::string& path) {
  return make_msccl_algorithm(read_msccl_xml(path));
}

Bytes msccl_chunk_bytes(const MscclProgram& program, Bytes size) {
  const int64_t per_loop = program.nchunksperloop;
  return Bytes(std::max<int64_t>(1, (size.count() + per_loop - 1) / per_loop));
}

Schedule msccl_schedule(const MscclAlgorithm& a, Bytes size) {
  const MscclProgram& p = a.program;
  const MscclDag& d = a.dag;
  const Bytes chunk = msccl_chunk_bytes(p, size);
  uint32_t max_count = 1;
  for (const MscclStep& step : p.steps)
    max_count = std::max(max_count, step.count);
  if (chunk.count() > INT64_MAX / max_count) {
    throw Error(p.file, "algo: nchunksperloop",
                fmt::format("a step of cnt {} moves more than 2^63 bytes at this size", max_count));
  }
  Schedule s;
  s.reserve(d.order.size(), 2 * d.order.size());
  std::vector<OpId> op(2 * p.steps.size());
  OpId deps[3];
  uint32_t nodes[3];
  for (const uint32_t n : d.order) {
    const uint32_t count = d.deps(p, n, nodes);
    for (uint32_t k = 0; k < count; ++k)
      deps[k] = op[nodes[k]];
    const uint32_t i = n / 2;
    const MscclStep& step = p.steps[i];
    const NodeId here{d.gpu[i]};
    if (n % 2 == 1) {
      const NodeId there{d.gpu[d.to[i]]};
      op[n] = s.add_transfer(here, there, chunk * step.count, Time::zero(), {deps, count}, step.src_off);
    } else {
      op[n] = s.add_local(here, Time::zero(), {deps, count}, step.dst_off);
    }
  }
  return s;
}

}  // namespace chorus
