// timeline.json, bounded and with send-to-receive flow arrows (see
// timeline_writer.hpp).
#include "chorus/runtime/timeline_writer.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/runtime/reports.hpp"

namespace chorus {

namespace {

double us(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e6;
}

constexpr int kCommTrack = static_cast<int>(Track::Comm);

// Where each kept event of the flows' endpoints is: (npu, node) -> index into
// the timeline, -1 when not kept.
std::vector<std::vector<int64_t>> event_index(const RunReport& r, const Workload& w, const TimelineSelection& s) {
  std::vector<std::vector<int64_t>> index(w.npus.size());
  if (r.flows.empty())
    return index;
  for (size_t npu = 0; npu < w.npus.size(); ++npu) {
    if (npu % s.npu_stride == 0)
      index[npu].assign(w.npus[npu].nodes.size(), -1);
  }
  for (size_t i = 0; i < r.timeline.size(); ++i) {
    const TimelineEvent& e = r.timeline[i];
    if (s.keeps(e))
      index[e.npu][e.node] = static_cast<int64_t>(i);
  }
  return index;
}

// Chrome flow events: "s" on the send's slice at its start, "f" bound to the
// receive's slice ("bp":"e", the enclosing slice) just before the receive
// completes, when the data has arrived.
void write_flows(OutputFile& out, const RunReport& r, const Workload& w, const TimelineSelection& s) {
  const std::vector<std::vector<int64_t>> index = event_index(r, w, s);
  for (size_t i = 0; i < r.flows.size(); ++i) {
    const MessageFlow& f = r.flows[i];
    if (index[f.send_npu].empty() || index[f.recv_npu].empty())
      continue;
    const int64_t send = index[f.send_npu][f.send_node];
    const int64_t recv = index[f.recv_npu][f.recv_node];
    if (send < 0 || recv < 0)
      continue;
    const TimelineEvent& a = r.timeline[static_cast<size_t>(send)];
    const TimelineEvent& b = r.timeline[static_cast<size_t>(recv)];
    const double arrive = std::max(us(b.start), us(b.end) - 1e-3);
    out.write(
        fmt::format(",\n{{\"name\":\"message\",\"cat\":\"p2p\",\"ph\":\"s\",\"id\":{0},"
                    "\"pid\":{1},\"tid\":{2},\"ts\":{3:.6f}}}"
                    ",\n{{\"name\":\"message\",\"cat\":\"p2p\",\"ph\":\"f\",\"bp\":\"e\","
                    "\"id\":{0},\"pid\":{4},\"tid\":{2},"
                    "\"ts\":{5:.6f}}}",
                    i, f.send_npu, kCommTrack, us(a.start), f.recv_npu, arrive));
  }
}

// The timeline track of a node's event; -1 for a node the timeline does not show.
int track_of(const WorkloadNode& n) {
  switch (n.type) {
    case chakra::NodeType::Comp:
      return static_cast<int>(Track::Compute);
    case chakra::NodeType::CommColl:
    case chakra::NodeType::CommSend:
    case chakra::NodeType::CommRecv:
      return kCommTrack;
    case chakra::NodeType::MemLoad:
    case chakra::NodeType::MemStore:
      return static_cast<int>(Track::Memory);
    default:
      return -1;
  }
}

// The critical path (critical_path.hpp): every segment as an "X" event on a track of its own, in a process after the
// NPUs' and the link counters' (complete even when NPUs are sampled out), and a flow arrow ("s" -> "f", category
// critical_path) from each segment to the next on the NPUs' own tracks wherever both NPUs' tracks are kept.
void write_critical_path(OutputFile& out, const RunReport& r, const Workload& w, const TimelineSelection& sel) {
  if (!r.critical_path)
    return;
  const size_t pid = w.npus.size() + 1;
  out.write(fmt::format(
      ",\n{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{0},\"args\":{{\"name\":\"critical path\"}}}}"
      ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{0},\"tid\":0,\"args\":{{\"name\":\"critical path\"}}}}",
      pid));
  const std::vector<PathSegment>& segments = r.critical_path->segments;
  std::string chunk;
  for (const PathSegment& seg : segments) {
    const WorkloadNode& n = w.npus[seg.npu].nodes[seg.node];
    chunk += fmt::format(
        ",\n{{\"name\":{},\"cat\":\"critical_path\",\"ph\":\"X\",\"ts\":{:.6f},\"dur\":{:.6f},\"pid\":{},\"tid\":0,"
        "\"args\":{{\"kind\":\"{}\",\"npu\":{},\"node\":{}}}}}",
        nlohmann::json(n.name).dump(), us(seg.start), us(seg.end - seg.start), pid, to_string(seg.kind), seg.npu, n.id);
  }
  const auto shown = [&](const PathSegment& seg) {
    const int track = track_of(w.npus[seg.npu].nodes[seg.node]);
    return track >= 0 && sel.keeps(TimelineEvent{seg.npu, seg.node, static_cast<Track>(track), seg.start, seg.end});
  };
  // Ids after the message arrows' (0 .. flows - 1), so that no two arrows share one.
  const size_t first_id = r.flows.size();
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    const PathSegment& a = segments[i];
    const PathSegment& b = segments[i + 1];
    if (!shown(a) || !shown(b))
      continue;
    // "s" inside a's slice just before it ends, "f" bound to the enclosing slice of b just after it starts.
    const double from = std::max(us(a.start), us(a.end) - 1e-3);
    const double to = std::min(us(b.end), us(b.start) + 1e-3);
    chunk += fmt::format(
        ",\n{{\"name\":\"critical path\",\"cat\":\"critical_path\",\"ph\":\"s\",\"id\":{0},\"pid\":{1},\"tid\":{2},"
        "\"ts\":{3:.6f}}},\n{{\"name\":\"critical path\",\"cat\":\"critical_path\",\"ph\":\"f\",\"bp\":\"e\","
        "\"id\":{0},\"pid\":{4},\"tid\":{5},\"ts\":{6:.6f}}}",
        first_id + i, a.npu, track_of(w.npus[a.npu].nodes[a.node]), from, b.npu, track_of(w.npus[b.npu].nodes[b.node]),
        to);
  }
  out.write(chunk);
}

// Counter tracks ("C" events) of link utilisation, one per link group, in a process of their own after the NPUs';
// each bin's value holds from its start to the next bin's, and the track returns to 0 at the end of the run.
void write_link_load(OutputFile& out, const RunReport& r, size_t npus) {
  if (!r.link_load)
    return;
  const LinkLoadSeries& s = *r.link_load;
  const size_t pid = npus;
  out.write(
      fmt::format(",\n{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},"
                  "\"args\":{{\"name\":\"link utilisation (busy share of each dimension's links)\"}}}}",
                  pid));
  std::string chunk;
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const std::string name = nlohmann::json(s.groups[g]).dump();
    const std::vector<double>& values = s.utilisation[g];
    for (size_t i = 0; i <= values.size(); ++i) {
      const double value = i < values.size() ? values[i] : 0.0;
      chunk +=
          fmt::format(",\n{{\"name\":{},\"ph\":\"C\",\"pid\":{},\"ts\":{:.6f},\"args\":{{\"utilisation\":{:.6g}}}}}",
                      name, pid, us(s.bin * static_cast<int64_t>(i)), value);
    }
  }
  out.write(chunk);
}

}  // namespace

std::optional<TimelineLevel> parse_timeline_level(std::string_view text) {
  if (text == "auto")
    return TimelineLevel::Auto;
  if (text == "full")
    return TimelineLevel::Full;
  if (text == "comm")
    return TimelineLevel::Comm;
  return std::nullopt;
}

std::string to_string(TimelineLevel level) {
  switch (level) {
    case TimelineLevel::Auto:
      return "auto";
    case TimelineLevel::Full:
      return "full";
    case TimelineLevel::Comm:
      return "comm";
  }
  return "?";
}

bool TimelineSelection::keeps(const TimelineEvent& e) const {
  if (level == TimelineLevel::Comm)
    return e.track == Track::Comm;
  return e.npu % npu_stride == 0;
}

TimelineSelection select_timeline(const RunReport& report, const TimelineLimits& limits) {
  TimelineSelection s;
  s.level = limits.level;
  s.total = report.timeline.size();
  if (limits.level == TimelineLevel::Comm) {
    for (const TimelineEvent& e : report.timeline)
      s.kept += e.track == Track::Comm;
    return s;
  }
  std::vector<size_t> per_npu(report.npus.size(), 0);
  for (const TimelineEvent& e : report.timeline)
    ++per_npu[e.npu];
  auto kept_with = [&per_npu](uint32_t stride) {
    size_t kept = 0;
    for (size_t npu = 0; npu < per_npu.size(); npu += stride)
      kept += per_npu[npu];
    return kept;
  };
  s.kept = s.total;
  if (limits.level == TimelineLevel::Full || s.total <= limits.max_events)
    return s;
  // The smallest stride that fits; NPU 0 alone when even that does not.
  const auto npus = static_cast<uint32_t>(std::max<size_t>(per_npu.size(), 1));
  for (s.npu_stride = 2; s.npu_stride < npus && kept_with(s.npu_stride) > limits.max_events; ++s.npu_stride) {
  }
  s.kept = kept_with(s.npu_stride);
  return s;
}

void write_timeline_json(const std::string& path, const ReportContext& context, const TimelineLimits& limits) {
  const RunReport& r = context.report;
  const Workload& w = context.workload;
  const TimelineSelection s = select_timeline(r, limits);
  OutputFile out(path, Argument{"out"});
  out.write(
      fmt::format("{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"timeline_"
                  "level\":\"{}\",\"npu_stride\":{},\"events\":{},"
                  "\"events_recorded\":{}}},\"traceEvents\":[\n",
                  to_string(s.level), s.npu_stride, s.kept, s.total));
  static constexpr std::array<const char*, 3> tracks{"compute", "communication", "memory"};
  bool first = true;
  for (size_t npu = 0; npu < w.npus.size(); npu += s.npu_stride) {
    out.write(
        fmt::format("{}{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{"
                    "},\"args\":{{\"name\":\"NPU {}\"}}}}",
                    first ? "" : ",\n", npu, npu));
    first = false;
    for (size_t t = 0; t < tracks.size(); ++t) {
      out.write(
          fmt::format(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},"
                      "\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}",
                      npu, t, tracks[t]));
    }
  }
  std::string chunk;
  for (const TimelineEvent& e : r.timeline) {
    if (!s.keeps(e))
      continue;
    const WorkloadNode& n = w.npus[e.npu].nodes[e.node];
    const std::string name = nlohmann::json(n.name.empty() ? chakra::to_string(n.type) : n.name).dump();
    chunk += fmt::format(
        ",\n{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{"
        ":.6f},\"dur\":{:.6f},\"pid\":{},\"tid\":{},"
        "\"args\":{{\"node\":{}}}}}",
        name, chakra::to_string(n.type), us(e.start), us(e.end - e.start), e.npu, static_cast<int>(e.track), n.id);
    if (chunk.size() > (1 << 20)) {
      out.write(chunk);
      chunk.clear();
    }
  }
  out.write(chunk);
  write_flows(out, r, w, s);
  write_link_load(out, r, w.npus.size());
  write_critical_path(out, r, w, s);
  out.write("\n]}\n");
  out.close();
}

}  // namespace chorus
