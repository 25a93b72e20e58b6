// Replicas of a symmetric workload's collectives and ranks (see replicas.hpp).
#include "chorus/runtime/replicas.hpp"

#include <algorithm>
#include <unordered_map>

namespace chorus {

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
    // Replicas on a shared link add bytes and busy time, as separate collectives do in LinkUsage.
    for (const LinkShare& s : usage_.shares(copy, timed)) {
      const auto [at, fresh] = slot.try_emplace(s.link, load.shares.size());
      if (fresh) {
        load.shares.push_back(s);
        continue;
      }
      LinkShare& total = load.shares[at->second];
      total.bytes += s.bytes;
      total.busy += s.busy;
      total.peak_flows = std::max(total.peak_flows, s.peak_flows);
    }
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

void expand_class_reports(const Workload& workload, RunReport& report) {
  if (!workload.symmetry)
    return;
  const RankClasses& s = *workload.symmetry;
  for (uint32_t rank = 0; rank < report.npus.size(); ++rank)
    report.npus[rank] = report.npus[s.classes[s.class_of[rank]].representative];
}

}  // namespace chorus
