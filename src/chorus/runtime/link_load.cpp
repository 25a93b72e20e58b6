// Link utilisation over time per link group (see link_load.hpp).
#include "chorus/runtime/link_load.hpp"

#include <algorithm>
#include <cmath>

#include "chorus/runtime/runtime.hpp"

namespace chorus {

LinkLoadRecorder::LinkLoadRecorder(const Topology& topology)
    : groups_(group_links(topology)), scratch_(groups_.names.size(), 0) {}

void LinkLoadRecorder::add(size_t index, Time start, Time end, uint32_t group, double bytes) {
  report_.push_back(index);
  start_.push_back(start);
  end_.push_back(end);
  group_.push_back(group);
  bytes_.push_back(bytes);
}

void LinkLoadRecorder::add_collective(size_t index, const std::vector<std::pair<uint32_t, double>>& link_bytes) {
  for (const auto& [link, bytes] : link_bytes)
    scratch_[groups_.of_link[link]] += bytes;
  for (uint32_t g = 0; g < scratch_.size(); ++g) {
    if (scratch_[g] > 0)
      add(index, Time::zero(), Time::zero(), g, scratch_[g]);
    scratch_[g] = 0;
  }
}

void LinkLoadRecorder::add_message(Time start, Time end, const std::vector<LinkShare>& shares) {
  for (const LinkShare& s : shares)
    scratch_[groups_.of_link[s.link]] += s.bytes;
  for (uint32_t g = 0; g < scratch_.size(); ++g) {
    if (scratch_[g] > 0)
      add(kMessage, start, end, g, scratch_[g]);
    scratch_[g] = 0;
  }
}

LinkLoadSeries LinkLoadRecorder::series(const std::vector<CollectiveReport>& collectives, Time finish,
                                        size_t bins) const {
  LinkLoadSeries s;
  s.groups = groups_.names;
  bins = std::max<size_t>(bins, 1);
  const double width = finish.seconds() / static_cast<double>(bins);
  s.bin = Time::ps(static_cast<int64_t>(std::llround(static_cast<double>(finish.picoseconds()) / bins)));
  std::vector<std::vector<double>> bytes(s.groups.size(), std::vector<double>(bins, 0));
  // Bytes of whole bins a record spans go through a difference array of rates (O(1) per record).
  std::vector<std::vector<double>> rate_change(s.groups.size(), std::vector<double>(bins + 1, 0));
  auto bin_of = [&](double t) {
    if (width <= 0)
      return size_t{0};
    return std::min(static_cast<size_t>(std::max(t / width, 0.0)), bins - 1);
  };
  for (size_t r = 0; r < group_.size(); ++r) {
    const bool message = report_[r] == kMessage;
    const double start = (message ? start_[r] : collectives[report_[r]].start).seconds();
    const double end = (message ? end_[r] : collectives[report_[r]].end).seconds();
    std::vector<double>& b = bytes[group_[r]];
    const size_t first = bin_of(start);
    const size_t last = bin_of(end);
    if (first == last || end <= start) {
      b[first] += bytes_[r];
      continue;
    }
    const double rate = bytes_[r] / (end - start);
    b[first] += rate * (static_cast<double>(first + 1) * width - start);
    b[last] += rate * (end - static_cast<double>(last) * width);
    rate_change[group_[r]][first + 1] += rate;
    rate_change[group_[r]][last] -= rate;
  }
  s.utilisation.assign(s.groups.size(), std::vector<double>(bins, 0));
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const double capacity = groups_.capacity[g].bytes_per_second() * width;
    double rate = 0;
    for (size_t i = 0; i < bins; ++i) {
      rate += rate_change[g][i];
      const double in_bin = bytes[g][i] + rate * width;
      s.utilisation[g][i] = capacity > 0 ? std::max(in_bin, 0.0) / capacity : 0;  // rounding can leave -1e-18
    }
  }
  return s;
}

}  // namespace chorus
