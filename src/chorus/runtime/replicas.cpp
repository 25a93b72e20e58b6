// Replicas of a symmetric workload's collectives and ranks (see replicas.hpp).
#include "chorus/runtime/replicas.hpp"

#include <algorithm>
#include <unordered_map>

namespace chorus {

namespace {

// Adds `more` into `total`, one entry per link in order of first use: bytes and busy times add, as separate
// collectives or messages do in LinkUsage; peak flows are the largest.
void merge(std::vector<LinkShare>& total, std::unordered_map<uint32_t, size_t>& slot,
           const std::vector<LinkShare>& more) {
  for (const LinkShare& s : more) {
    const auto [at, fresh] = slot.try_emplace(s.link, total.size());
    if (fresh) {
      total.push_back(s);
      continue;
    }
    LinkShare& t = total[at->second];
    t.bytes += s.bytes;
    t.busy += s.busy;
    t.peak_flows = std::max(t.peak_flows, s.peak_flows);
  }
}

}  // namespace

const ReplicaLinks::Load& ReplicaLinks::load(uint32_t group, const TimedCollective& timed) {
  const auto [it, inserted] = cache_.try_emplace({group, &timed});
  Load& load = it->second;
  if (!inserted)
    return load;
  const std::vector<uint32_t>& members = workload_.groups[group].npus;
  const GroupReplicas replicas = workload_.symmetry ? workload_.symmetry->replicas[group] : GroupReplicas{};
  std::unordered_map<uint32_t, size_t> slot;  // link -> index in load.shares, in order of first use
  std::vector<uint32_t> copy(members.size());
  for (uint32_t i = 0; i < replicas.count; ++i) {
    for (size_t m = 0; m < members.size(); ++m)
      copy[m] = members[m] + i * replicas.stride;
    merge(load.shares, slot, usage_.shares(copy, timed));
  }
  load.bytes.reserve(load.shares.size());
  for (const LinkShare& s : load.shares)
    load.bytes.emplace_back(s.link, s.bytes);
  return load;
}

const std::vector<std::pair<uint32_t, double>>& ReplicaLinks::link_bytes(uint32_t group, const TimedCollective& timed) {
  return load(group, timed).bytes;
}

void ReplicaLinks::add_collective(uint32_t group, const TimedCollective& timed) {
  usage_.add(load(group, timed).shares);
}

const std::vector<LinkShare>& ReplicaLinks::add_message(uint32_t src, uint32_t dst, Bytes bytes) {
  if (!workload_.symmetry) {
    message_.clear();
    usage_.message_shares(src, dst, bytes, message_);
    usage_.add(message_);
    return message_;
  }
  const auto [it, inserted] = messages_.try_emplace({src, dst, bytes.count()});
  if (inserted) {
    const RankClasses& s = *workload_.symmetry;
    const std::vector<uint32_t>& from = s.classes[s.class_of[src]].members;
    const std::vector<uint32_t>& to = s.classes[s.class_of[dst]].members;  // as many, checked on loading
    std::unordered_map<uint32_t, size_t> slot;
    std::vector<LinkShare> one;
    for (size_t i = 0; i < from.size(); ++i) {
      one.clear();
      usage_.message_shares(from[i], to[i], bytes, one);
      merge(it->second, slot, one);
    }
  }
  usage_.add(it->second);
  return it->second;
}

void expand_class_reports(const Workload& workload, RunReport& report) {
  if (!workload.symmetry)
    return;
  const RankClasses& s = *workload.symmetry;
  for (uint32_t rank = 0; rank < report.npus.size(); ++rank)
    report.npus[rank] = report.npus[s.classes[s.class_of[rank]].representative];
}

}  // namespace chorus
