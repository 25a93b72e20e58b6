// The measured critical path of one rank's Kineto timeline (kineto_path.hpp).
#include "chorus/pytorch/kineto_path.hpp"

#include <algorithm>
#include <climits>
#include <map>

#include "chorus/core/assert.hpp"

namespace chorus::pytorch {
namespace {

// A stretch of one lane and the innermost event running in it; event -1: nothing runs.
struct Piece {
  int64_t start;
  int64_t end;
  int64_t event;
};

enum class Part : uint8_t { Compute, Communication, Launch, Idle };

const char* part_name(Part p) {
  switch (p) {
    case Part::Compute:
      return "compute";
    case Part::Communication:
      return "communication";
    case Part::Launch:
      return "launch";
    case Part::Idle:
      break;
  }
  return "idle";
}

// Each lane flattened into pieces, nested events (operators and their children) as their innermost one.
std::vector<std::vector<Piece>> flatten(const KinetoTimeline& t) {
  std::vector<std::vector<uint32_t>> by_lane(t.lanes);
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].end > t.events[i].start)  // an event of no length holds no time
      by_lane[t.events[i].lane].push_back(i);
  std::vector<std::vector<Piece>> lanes(t.lanes);
  for (uint32_t lane = 0; lane < t.lanes; ++lane) {
    std::vector<uint32_t>& ev = by_lane[lane];
    std::sort(ev.begin(), ev.end(), [&](uint32_t a, uint32_t b) {
      const KinetoEvent &x = t.events[a], &y = t.events[b];
      return x.start != y.start ? x.start < y.start : x.end > y.end;  // a parent before its first child
    });
    std::vector<Piece>& out = lanes[lane];
    const auto emit = [&](int64_t a, int64_t b, int64_t e) {
      if (b > a)
        out.push_back({a, b, e});
    };
    std::vector<std::pair<int64_t, uint32_t>> open;  // (end, event), innermost last
    int64_t cur = 0;
    for (const uint32_t i : ev) {
      const KinetoEvent& e = t.events[i];
      while (!open.empty() && open.back().first <= e.start) {
        emit(cur, open.back().first, open.back().second);
        cur = open.back().first;
        open.pop_back();
      }
      if (!out.empty() || !open.empty())
        emit(cur, e.start, open.empty() ? -1 : static_cast<int64_t>(open.back().second));
      cur = e.start;
      // An event that outlasts the one it starts in (rounding in the trace) is cut at its end.
      const int64_t end = open.empty() ? e.end : std::min(e.end, open.back().first);
      if (end > cur)
        open.emplace_back(end, i);
    }
    while (!open.empty()) {
      emit(cur, open.back().first, open.back().second);
      cur = open.back().first;
      open.pop_back();
    }
  }
  return lanes;
}

class Walk {
 public:
  explicit Walk(const KinetoTimeline& t) : t_(t), lanes_(flatten(t)) {
    for (uint32_t i = 0; i < t.events.size(); ++i)
      if (t.events[i].kind == EventKind::Gpu) {
        gpu_by_end_.push_back(i);
        gpu_run_ = true;
      }
    std::sort(gpu_by_end_.begin(), gpu_by_end_.end(),
              [&](uint32_t a, uint32_t b) { return t.events[a].end < t.events[b].end; });
  }

  MeasuredRank run() {
    MeasuredRank m;
    if (t_.events.empty())
      return m;
    const KinetoEvent* last = &t_.events.front();
    int64_t first = last->start;
    for (const KinetoEvent& e : t_.events) {
      first = std::min(first, e.start);
      if (later(e, *last))
        last = &e;
    }
    start_ = first;
    m.span = Time::ns(last->end - first);
    walk(last->lane, last->end);
    m.path = split_;
    finish_ops(m);
    return m;
  }

 private:
  // The event that ends last; on a tie the kernel, then the one that started last (the innermost).
  static bool later(const KinetoEvent& a, const KinetoEvent& b) {
    if (a.end != b.end)
      return a.end > b.end;
    if ((a.kind == EventKind::Gpu) != (b.kind == EventKind::Gpu))
      return a.kind == EventKind::Gpu;
    return a.start > b.start;
  }

  void add(Part part, int64_t from, int64_t to, uint32_t name) {
    if (to <= from)
      return;
    const Time d = Time::ns(to - from);
    switch (part) {
      case Part::Compute:
        split_.compute += d;
        break;
      case Part::Communication:
        split_.communication += d;
        break;
      case Part::Launch:
        split_.launch += d;
        break;
      case Part::Idle:
        split_.idle += d;
        return;
    }
    auto& [segments, time] = ops_[{name, part}];
    ++segments;
    time += d;
  }

  // The piece of `lane` running just before t: the last one that starts before t; nullptr when none does.
  const Piece* before(uint32_t lane, int64_t t) const {
    const std::vector<Piece>& p = lanes_[lane];
    auto it = std::lower_bound(p.begin(), p.end(), t, [](const Piece& x, int64_t v) { return x.start < v; });
    return it == p.begin() ? nullptr : &*std::prev(it);
  }

  // When `lane` last had something running before piece p (INT64_MIN: never).
  int64_t busy_until(uint32_t lane, const Piece* p) const {
    const std::vector<Piece>& pieces = lanes_[lane];
    if (p == pieces.data())
      return INT64_MIN;
    const Piece& prev = *(p - 1);
    return prev.event < 0 ? prev.start : prev.end;
  }

  // The kernel that ended last in (from, to]; nullptr when none did.
  const KinetoEvent* kernel_ended_in(int64_t from, int64_t to) const {
    auto it = std::upper_bound(gpu_by_end_.begin(), gpu_by_end_.end(), to,
                               [&](int64_t v, uint32_t i) { return v < t_.events[i].end; });
    if (it == gpu_by_end_.begin())
      return nullptr;
    const KinetoEvent& k = t_.events[*std::prev(it)];
    return k.end > from ? &k : nullptr;
  }

  void walk(uint32_t lane, int64_t t) {
    // Every step ends a piece, crosses a lane's trailing gap or moves to another lane (then ends a piece there): at
    // most three steps per piece.
    size_t pieces = 0;
    for (const auto& l : lanes_)
      pieces += l.size();
    for (size_t steps = 0; t > start_; ++steps) {
      CHORUS_ASSERT(steps <= 3 * pieces + 2, "measured critical path walk did not end");
      const Piece* p = before(lane, t);
      if (p == nullptr) {
        add(Part::Idle, start_, t, 0);
        return;
      }
      if (p->end < t) {  // after the lane's last event
        add(Part::Idle, p->end, t, 0);
        t = p->end;
        continue;
      }
      if (p->event < 0) {
        add(Part::Idle, p->start, t, 0);
        t = p->start;
        continue;
      }
      const auto index = static_cast<uint32_t>(p->event);
      const KinetoEvent& e = t_.events[index];
      if (e.kind == EventKind::Gpu) {
        add(e.comm ? Part::Communication : Part::Compute, p->start, t, e.name);
        t = p->start;
        if (t == e.start)
          released_by_launch(index, lane, p, t);
        continue;
      }
      if (e.sync) {
        if (const KinetoEvent* k = kernel_ended_in(p->start, t)) {
          add(Part::Launch, k->end, t, e.name);
          lane = k->lane;
          t = k->end;
          continue;
        }
      }
      add(gpu_run_ ? Part::Launch : e.comm ? Part::Communication : Part::Compute, p->start, t, e.name);
      t = p->start;
    }
  }

  // Kernel `index` starts at t on `lane`: when its launch call came after the stream's previous work, the walk
  // moves to the launching thread (the launch latency in between is launch time).
  void released_by_launch(uint32_t index, uint32_t& lane, const Piece* p, int64_t& t) {
    const uint32_t l = t_.launched_by[index];
    if (l == KinetoTimeline::kNone)
      return;
    const KinetoEvent& launch = t_.events[l];
    const int64_t issued = std::min(launch.end, t);  // a kernel can start before its launch call returns
    if (issued <= busy_until(lane, p))
      return;
    add(Part::Launch, issued, t, launch.name);
    lane = launch.lane;
    t = issued;
  }

  void finish_ops(MeasuredRank& m) const {
    for (const auto& [key, value] : ops_)
      m.path_ops.push_back({t_.names[key.first], part_name(key.second), value.first, value.second});
    std::stable_sort(m.path_ops.begin(), m.path_ops.end(),
                     [](const MeasuredPathOp& a, const MeasuredPathOp& b) { return a.time > b.time; });
    if (m.path_ops.size() > kMaxPathOps)
      m.path_ops.resize(kMaxPathOps);
  }

  const KinetoTimeline& t_;
  std::vector<std::vector<Piece>> lanes_;
  std::vector<uint32_t> gpu_by_end_;
  bool gpu_run_ = false;
  int64_t start_ = 0;
  MeasuredSplit split_;
  std::map<std::pair<uint32_t, Part>, std::pair<uint64_t, Time>> ops_;
};

}  // namespace

uint32_t TimelineBuilder::lane(const std::string& key) {
  const auto [it, added] = lanes_.emplace(key, t_.lanes);
  if (added)
    ++t_.lanes;
  return it->second;
}

uint32_t TimelineBuilder::name(const std::string& text) {
  const auto [it, added] = names_.emplace(text, static_cast<uint32_t>(t_.names.size()));
  if (added)
    t_.names.push_back(text);
  return it->second;
}

void TimelineBuilder::add(const KinetoEvent& e, std::optional<int64_t> correlation) {
  const auto index = static_cast<uint32_t>(t_.events.size());
  t_.events.push_back(e);
  if (!correlation)
    return;
  if (e.kind == EventKind::Runtime)
    runtime_by_correlation_.emplace(*correlation, index);
  else if (e.kind == EventKind::Gpu)
    gpu_correlations_.emplace_back(index, *correlation);
}

void TimelineBuilder::flow(char phase, int64_t id, uint32_t lane, int64_t ts) {
  (phase == 's' ? flow_starts_ : flow_ends_).emplace(id, FlowEnd{lane, ts});
}

KinetoTimeline TimelineBuilder::finish() {
  t_.launched_by.assign(t_.events.size(), KinetoTimeline::kNone);
  for (const auto& [event, correlation] : gpu_correlations_) {
    const auto it = runtime_by_correlation_.find(correlation);
    if (it != runtime_by_correlation_.end())
      t_.launched_by[event] = it->second;
  }
  if (!flow_starts_.empty()) {
    // A flow binds to the event of its lane that starts at its ts: the runtime call ('s') and the kernel ('f').
    std::map<std::pair<uint32_t, int64_t>, uint32_t> at;
    for (uint32_t i = 0; i < t_.events.size(); ++i)
      if (t_.events[i].kind != EventKind::Cpu)
        at.emplace(std::make_pair(t_.events[i].lane, t_.events[i].start), i);
    for (const auto& [id, s] : flow_starts_) {
      const auto f = flow_ends_.find(id);
      if (f == flow_ends_.end())
        continue;
      const auto from = at.find({s.lane, s.ts});
      const auto to = at.find({f->second.lane, f->second.ts});
      if (from != at.end() && to != at.end() && t_.events[from->second].kind == EventKind::Runtime &&
          t_.events[to->second].kind == EventKind::Gpu && t_.launched_by[to->second] == KinetoTimeline::kNone)
        t_.launched_by[to->second] = from->second;
    }
  }
  return std::move(t_);
}

MeasuredRank walk_measured_path(const KinetoTimeline& t) {
  return Walk(t).run();
}

}  // namespace chorus::pytorch
