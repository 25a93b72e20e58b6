// Concurrent collectives sharing links, at collective granularity (`chorus sim --model flow --contention`).
//
// Each collective is first timed in isolation (CollectiveTimer) and mapped onto the physical links it uses
// (LinkUsage): it needs bytes_l / T_isolated of link l's bandwidth on average to progress at its isolated speed.
// While collectives overlap, each progresses at a fraction x_c <= 1 of that speed, with the fractions max-min fair
// under sum_c x_c * bytes_cl / T_c <= bandwidth_l on every link: the flow model's max-min solver
// (network/flow/maxmin.hpp) with collectives as weighted flows (weight bytes_cl / T_c on link l) and x_c capped
// at 1 by a private resource of capacity 1. A collective alone gets x = 1 and ends exactly when it would in
// isolation; rates are recomputed when one starts or ends, for the collectives linked to it through shared links.
// It is a fluid approximation: demands are averages over the collective's duration, so bursts that would
// collide inside it are not seen; point-to-point messages do not take part.
//
//   CollectiveContention c(topology);
//   for (const EndChange& e : c.start(now, isolated, link_bytes)) queue(e.id, e.end, e.version);
//   if (c.current(id, version)) for (const EndChange& e : c.finish(id, now)) queue(...);
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/network/flow/maxmin.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct EndChange {
  uint32_t id = 0;
  Time end;
  uint32_t version = 0;
};

class CollectiveContention {
 public:
  explicit CollectiveContention(const Topology& topology);
  // `link_bytes`: (physical link, bytes) pairs of the collective, as LinkStats counts them (doubles: they only
  // weigh the max-min shares, and a symmetric evaluation's per-link bytes are averages). Returns the moved end
  // times of the others and, last, the new collective's (its id names it in finish()).
  const std::vector<EndChange>& start(Time now, Time isolated,
                                      const std::vector<std::pair<uint32_t, double>>& link_bytes);
  // The collective `id` has ended at `now`; returns the end times of the others that moved.
  const std::vector<EndChange>& finish(uint32_t id, Time now);
  // Whether an end event (id, version) is still the collective's latest.
  bool current(uint32_t id, uint32_t version) const;

 private:
  struct Active {
    double remaining_ps = 0;  // of isolated time
    double rate = 1;          // fraction of the isolated speed
    Time last;                // when remaining_ps was last advanced
    uint32_t version = 0;
    bool live = false;
  };

  void update(Time now, int64_t fresh);

  MaxMinSystem system_;              // resources: the links, then one rate cap per collective slot
  std::vector<uint32_t> cap_;        // per collective id: its cap resource
  std::vector<Active> active_;       // per collective id (= its flow in system_)
  std::vector<uint32_t> changed_;    // scratch of update()
  std::vector<uint32_t> resources_;  // scratch of start()
  std::vector<double> weights_;      // scratch of start()
  std::vector<EndChange> changes_;
};

}  // namespace chorus
