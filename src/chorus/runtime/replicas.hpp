// What the replicas of a symmetric workload's collectives put on the network, and their per-NPU reports
// (docs/workload.md, "Symmetric workloads").
//
// A representative's collective on group G stands for G's replicas (G shifted by i * stride), which the other
// ranks of its classes run at the same instant for the same time. Their link loads are added up per physical
// link: links.csv counts every replica, and under `flow --contention` the representative's collective is one flow
// whose demand on each link is that of all its replicas together. That is exact wherever the replicas get equal
// shares in the full simulation (they do when the classes are equivalent, the premise of a symmetric workload):
// max-min fairness raises equal flows together, so their sum meets every link's capacity when theirs do.
// A message between representatives is copied between the members at the same positions of their classes.
// For an ordinary workload (one replica per group) this is the group's own load, cached per distinct collective.
//
//   ReplicaLinks replicas(workload, usage);
//   contention.start(now, duration, replicas.link_bytes(group, timed));
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "chorus/runtime/link_usage.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/workload/workload.hpp"

namespace chorus {

class ReplicaLinks {
 public:
  ReplicaLinks(const Workload& workload, LinkUsage& usage) : workload_(workload), usage_(usage) {}
  // (physical link, bytes) of the collective on `group` and all its replicas.
  const std::vector<std::pair<uint32_t, double>>& link_bytes(uint32_t group, const TimedCollective& timed);
  // Adds the collective and its replicas to the link statistics.
  void add_collective(uint32_t group, const TimedCollective& timed);
  // Adds a point-to-point message between representatives and its copies between the members at the same
  // positions of their classes (rank_classes.hpp). Returns what it added, per link (valid until the next call).
  const std::vector<LinkShare>& add_message(uint32_t src, uint32_t dst, Bytes bytes);

 private:
  struct Load {
    std::vector<std::pair<uint32_t, double>> bytes;
    std::vector<LinkShare> shares;
  };
  const Load& load(uint32_t group, const TimedCollective& timed);

  const Workload& workload_;
  LinkUsage& usage_;
  std::map<std::pair<uint32_t, const TimedCollective*>, Load> cache_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<LinkShare>> messages_;
  std::vector<LinkShare> message_;  // the last message of an ordinary workload
};

// In a symmetric workload, every rank's NpuReport becomes its class representative's (the runtime ran only those).
void expand_class_reports(const Workload& workload, RunReport& report);

}  // namespace chorus
