// Collective names and NCCL bus-bandwidth factors.
#include "chorus/collective/collective.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

std::string to_string(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce:
      return "all_reduce";
    case CollectiveKind::ReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::AllGather:
      return "all_gather";
    case CollectiveKind::AllToAll:
      return "all_to_all";
    case CollectiveKind::Broadcast:
      return "broadcast";
    case CollectiveKind::Reduce:
      return "reduce";
  }
  return "?";
}

std::optional<CollectiveKind> parse_collective_kind(std::string_view text) {
  std::string key;
  for (char c : text) {
    if (c != '_' && c != '-')
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                           CollectiveKind::AllToAll, CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
    std::string name = to_string(k);
    std::erase(name, '_');
    if (key == name)
      return k;
  }
  return std::nullopt;
}

CollectiveKind collective_kind_argument(std::string_view text) {
  const std::optional<CollectiveKind> kind = parse_collective_kind(text);
  if (!kind) {
    throw Error(
        "", Argument{"collective"},
        fmt::format(
            "unknown collective '{}'; expected all_reduce, reduce_scatter, all_gather, all_to_all, broadcast or reduce",
            text));
  }
  return *kind;
}

double bus_factor(CollectiveKind kind, uint32_t npus) {
  const double n = npus;
  switch (kind) {
    case CollectiveKind::AllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
    case CollectiveKind::AllToAll:
      return (n - 1) / n;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      return 1.0;
  }
  return 1.0;
}

CollectiveBandwidth collective_bandwidth(CollectiveKind kind, Bytes size, uint32_t npus, Time time) {
  if (time <= Time::zero())
    return {};
  const double algbw = static_cast<double>(size.count()) / time.seconds() / 1e9;
  return {algbw, algbw * bus_factor(kind, npus)};
}

}  // namespace chorus
