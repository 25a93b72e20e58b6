// Send/receive matching and the topological order of an MSCCL program (see dag.hpp).
#include "chorus/msccl/dag.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

bool has_local_node(MscclStepType t) {
  return !msccl_sends(t) || msccl_receives(t);
}

bool node_exists(const MscclProgram& p, uint32_t n) {
  const MscclStepType t = p.steps[n / 2].type;
  return n % 2 == 0 ? has_local_node(t) : msccl_sends(t);
}

std::string step_name(const MscclDag& d, const MscclProgram& p, uint32_t step) {
  const uint32_t g = d.gpu[step], t = d.tb[step];
  return fmt::format("gpu {} tb {} step {}", g, t, step - p.tbs[p.gpus[g].first_tb + t].first_step);
}

// One end of a connection: the thread block of `gpu` that sends to (or receives from) `peer` on `chan`.
uint64_t key(uint32_t gpu, uint32_t peer, uint32_t chan) {
  return (uint64_t{gpu} << 40) ^ (uint64_t{peer} << 16) ^ chan;
}

// Pairs the sending steps of every thread block with the receiving steps at the other end, in order.
void match(const MscclProgram& p, MscclDag& d) {
  std::unordered_map<uint64_t, uint32_t> receivers;  // (gpu, from, chan) -> global tb index
  for (uint32_t g = 0; g < p.ngpus; ++g) {
    for (uint32_t t = 0; t < p.gpus[g].tb_count; ++t) {
      const MscclThreadBlock& tb = p.tbs[p.gpus[g].first_tb + t];
      if (tb.recv < 0)
        continue;
      const auto [it, fresh] = receivers.emplace(key(g, tb.recv, tb.chan), p.gpus[g].first_tb + t);
      if (!fresh) {
        throw Error(p.file, fmt::format("gpu {} tb {}: recv", g, t),
                    fmt::format("tb {} also receives from gpu {} on channel {}; one thread block per peer and channel",
                                it->second - p.gpus[g].first_tb, tb.recv, tb.chan));
      }
    }
  }
  std::unordered_map<uint64_t, uint32_t> senders;
  for (uint32_t g = 0; g < p.ngpus; ++g) {
    for (uint32_t t = 0; t < p.gpus[g].tb_count; ++t) {
      const MscclThreadBlock& tb = p.tbs[p.gpus[g].first_tb + t];
      if (tb.send < 0)
        continue;
      const std::string where = fmt::format("gpu {} tb {}: send", g, t);
      const auto [dup, fresh] = senders.emplace(key(g, tb.send, tb.chan), t);
      if (!fresh) {
        throw Error(p.file, where,
                    fmt::format("tb {} also sends to gpu {} on channel {}; one thread block per peer and channel",
                                dup->second, tb.send, tb.chan));
      }
      const auto it = receivers.find(key(static_cast<uint32_t>(tb.send), g, tb.chan));
      const uint32_t peer_gpu = static_cast<uint32_t>(tb.send);
      std::vector<uint32_t> sends, recvs;
      for (uint32_t s = 0; s < tb.step_count; ++s) {
        if (msccl_sends(p.steps[tb.first_step + s].type))
          sends.push_back(tb.first_step + s);
      }
      if (it != receivers.end()) {
        const MscclThreadBlock& rtb = p.tbs[it->second];
        for (uint32_t s = 0; s < rtb.step_count; ++s) {
          if (msccl_receives(p.steps[rtb.first_step + s].type))
            recvs.push_back(rtb.first_step + s);
        }
      }
      if (sends.size() != recvs.size()) {
        throw Error(p.file, where,
                    fmt::format("sends {} times to gpu {} on channel {}, but gpu {} receives {} times from gpu {} "
                                "there",
                                sends.size(), peer_gpu, tb.chan, peer_gpu, recvs.size(), g));
      }
      for (size_t k = 0; k < sends.size(); ++k) {
        const MscclStep& a = p.steps[sends[k]];
        const MscclStep& b = p.steps[recvs[k]];
        if (a.count != b.count) {
          throw Error(
              p.file, step_name(d, p, recvs[k]) + ": cnt",
              fmt::format("is {}, but the matching send ({}) has cnt {}", b.count, step_name(d, p, sends[k]), a.count));
        }
        d.to[sends[k]] = recvs[k];
        d.from[recvs[k]] = sends[k];
      }
      d.transfers += sends.size();
    }
  }
  // A receiving thread block nobody sends to.
  for (const auto& [k, global_tb] : receivers) {
    const MscclThreadBlock& tb = p.tbs[global_tb];
    for (uint32_t s = 0; s < tb.step_count; ++s) {
      const uint32_t step = tb.first_step + s;
      if (msccl_receives(p.steps[step].type) && d.from[step] == kMscclNone) {
        throw Error(p.file, step_name(d, p, step) + ": type",
                    fmt::format("receives from gpu {} on channel {}, but gpu {} sends nothing to gpu {} there", tb.recv,
                                tb.chan, tb.recv, d.gpu[step]));
      }
    }
  }
}

// Follows unfinished dependencies from an unfinished node until one repeats: that node lies on a cycle.
[[noreturn]] void report_cycle(const MscclProgram& p, const MscclDag& d, const std::vector<uint32_t>& pending) {
  uint32_t n = kMscclNone;
  for (uint32_t i = 0; i < pending.size() && n == kMscclNone; ++i) {
    if (pending[i] > 0 && node_exists(p, i))
      n = i;
  }
  std::vector<char> seen(pending.size(), 0);
  while (!seen[n]) {
    seen[n] = 1;
    uint32_t deps[3];
    const uint32_t count = d.deps(p, n, deps);
    for (uint32_t k = 0; k < count; ++k) {
      if (pending[deps[k]] > 0) {
        n = deps[k];
        break;
      }
    }
  }
  throw Error(p.file, step_name(d, p, n / 2) + ": depid",
              "lies on a dependency cycle (it waits, through dependencies, thread-block order and transfers, for "
              "itself)");
}

}  // namespace

uint32_t MscclDag::deps(const MscclProgram& p, uint32_t n, uint32_t out[3]) const {
  const uint32_t i = n / 2;
  const MscclStep& step = p.steps[i];
  uint32_t count = 0;
  if (n % 2 == 1 && msccl_receives(step.type)) {
    out[count++] = 2 * i;  // forward what arrived: the local part already waited for the predecessors
    return count;
  }
  if (n % 2 == 0 && msccl_receives(step.type))
    out[count++] = 2 * from[i] + 1;
  if (prev[i] != kMscclNone)
    out[count++] = done(p, prev[i]);
  if (step.dep_tb >= 0)
    out[count++] =
        done(p, p.step_index(gpu[i], static_cast<uint32_t>(step.dep_tb), static_cast<uint32_t>(step.dep_step)));
  return count;
}

MscclDag build_msccl_dag(const MscclProgram& p) {
  MscclDag d;
  const size_t steps = p.steps.size();
  d.from.assign(steps, kMscclNone);
  d.to.assign(steps, kMscclNone);
  d.gpu.resize(steps);
  d.tb.resize(steps);
  d.prev.assign(steps, kMscclNone);
  for (uint32_t g = 0; g < p.ngpus; ++g) {
    for (uint32_t t = 0; t < p.gpus[g].tb_count; ++t) {
      const MscclThreadBlock& tb = p.tbs[p.gpus[g].first_tb + t];
      for (uint32_t s = 0; s < tb.step_count; ++s) {
        d.gpu[tb.first_step + s] = g;
        d.tb[tb.first_step + s] = t;
        if (s > 0)
          d.prev[tb.first_step + s] = tb.first_step + s - 1;
      }
    }
  }
  match(p, d);
  // Kahn's algorithm over the nodes, successors in CSR form.
  const size_t nodes = 2 * steps;
  std::vector<uint32_t> pending(nodes, 0), begin(nodes + 1, 0);
  uint32_t buf[3];
  for (uint32_t n = 0; n < nodes; ++n) {
    if (!node_exists(p, n))
      continue;
    const uint32_t count = d.deps(p, n, buf);
    pending[n] = count;
    for (uint32_t k = 0; k < count; ++k)
      ++begin[buf[k] + 1];
  }
  for (size_t n = 0; n < nodes; ++n)
    begin[n + 1] += begin[n];
  std::vector<uint32_t> succ(begin[nodes]), fill(begin.begin(), begin.end() - 1);
  for (uint32_t n = 0; n < nodes; ++n) {
    if (!node_exists(p, n))
      continue;
    const uint32_t count = d.deps(p, n, buf);
    for (uint32_t k = 0; k < count; ++k)
      succ[fill[buf[k]]++] = n;
  }
  size_t live = 0;
  d.order.reserve(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    if (!node_exists(p, n))
      continue;
    ++live;
    if (pending[n] == 0)
      d.order.push_back(n);
  }
  for (size_t head = 0; head < d.order.size(); ++head) {
    const uint32_t n = d.order[head];
    for (uint32_t k = begin[n]; k < begin[n + 1]; ++k) {
      if (--pending[succ[k]] == 0)
        d.order.push_back(succ[k]);
    }
  }
  if (d.order.size() != live)
    report_cycle(p, d, pending);
  return d;
}

}  // namespace chorus
