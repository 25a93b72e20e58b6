// Link utilisation over time, per link group (dimension or bandwidth tier, topology/link_groups.hpp): what the
// timeline's counter tracks show. Each collective's and message's bytes on a link are spread evenly over its time
// in flight and summed in fixed-width time bins; a bin's utilisation is its bytes over what the group's links could
// carry in that time (bin width x the sum of their bandwidths). Without --contention, collectives are timed in
// isolation, so concurrent ones can put a group above 1: the load they would have contended for.
//
//   LinkLoadRecorder load(topology);
//   load.add_collective(report_index, usage.link_bytes(group, timed));
//   load.add_message(start, arrival, shares);   // LinkUsage::message_shares
//   LinkLoadSeries s = load.series(report.collectives, report.finish, 500);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/runtime/link_usage.hpp"
#include "chorus/topology/link_groups.hpp"

namespace chorus {

struct CollectiveReport;

struct LinkLoadSeries {
  std::vector<std::string> groups;
  Time bin;                                      // width of each bin; bin i covers [i * bin, (i + 1) * bin)
  std::vector<std::vector<double>> utilisation;  // [group][bin]
};

class LinkLoadRecorder {
 public:
  explicit LinkLoadRecorder(const Topology& topology);

  // A collective's bytes per link (link, bytes); its time in flight is read from report `index` at the end.
  void add_collective(size_t index, const std::vector<std::pair<uint32_t, double>>& link_bytes);
  // A message's bytes per link (its copies' too, in a symmetric workload), in flight over [start, end].
  void add_message(Time start, Time end, const std::vector<LinkShare>& shares);

  // `bins` bins of equal width covering [0, finish].
  LinkLoadSeries series(const std::vector<CollectiveReport>& collectives, Time finish, size_t bins) const;

 private:
  static constexpr size_t kMessage = SIZE_MAX;  // report index of a message record

  void add(size_t index, Time start, Time end, uint32_t group, double bytes);

  LinkGroups groups_;
  std::vector<double> scratch_;  // bytes per group of the record being added
  // One record per (collective or message, group it touched), struct of arrays.
  std::vector<size_t> report_;
  std::vector<Time> start_;
  std::vector<Time> end_;
  std::vector<uint32_t> group_;
  std::vector<double> bytes_;
};

}  // namespace chorus
