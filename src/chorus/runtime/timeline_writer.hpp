// timeline.json: the run in Chrome's trace-event format (opens in
// ui.perfetto.dev and chrome://tracing), bounded in size: one process per NPU
// with a compute, a communication and a memory track, each node an "X" event,
// a flow arrow from each send to the receive it matched, and the critical path
// (a track of its own, and "critical_path" flow arrows from each of its
// segments to the next on the NPUs' tracks). A run with more
// events than the budget keeps whole NPUs, every k-th one (k the smallest that
// fits), so each kept track stays complete; `comm` keeps the communication
// track of every NPU; `full` keeps everything (the GPT-3 1,024-NPU run: about
// 120 MB).
//
//   TimelineSelection s = select_timeline(report, {TimelineLevel::Auto,
//   200'000}); if (s.npu_stride > 1) ...  // sampled
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "chorus/runtime/runtime.hpp"

namespace chorus {

enum class TimelineLevel : uint8_t { Auto, Full, Comm };

// "auto", "full", "comm"; nullopt otherwise.
std::optional<TimelineLevel> parse_timeline_level(std::string_view text);
std::string to_string(TimelineLevel level);

struct TimelineLimits {
  TimelineLevel level = TimelineLevel::Auto;
  size_t max_events = 200'000;  // Auto: about 30 MB of JSON
};

struct TimelineSelection {
  TimelineLevel level = TimelineLevel::Auto;
  uint32_t npu_stride = 1;  // NPUs kept: 0, k, 2k, ...
  size_t kept = 0;          // events written
  size_t total = 0;         // events recorded
  bool keeps(const TimelineEvent& e) const;
};

TimelineSelection select_timeline(const RunReport& report, const TimelineLimits& limits);

}  // namespace chorus
