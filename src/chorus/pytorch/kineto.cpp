// Kineto / profiler chrome-trace join onto an execution trace (kineto.hpp).
#include "chorus/pytorch/kineto.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/json_file.hpp"
#include "chorus/pytorch/collectives.hpp"
#include "chorus/pytorch/kineto_path.hpp"

namespace chorus::pytorch {
namespace {

using json = nlohmann::json;

struct Event {
  const json* e;
  double ts;
  uint64_t dur;
};

std::optional<int64_t> int_arg(const json& e, const char* key) {
  const auto args = e.find("args");
  if (args == e.end() || !args->is_object())
    return std::nullopt;
  const auto v = args->find(key);
  if (v == args->end() || !v->is_number_integer())
    return std::nullopt;
  return v->get<int64_t>();
}

bool is_gpu(const std::string& cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

bool is_runtime(const std::string& cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver";
}

bool is_cpu(const std::string& cat) {
  return cat.empty() || cat == "cpu_op" || cat == "user_annotation" || cat == "Operator" || cat == "python_function";
}

// CUDA calls that return only when the GPU has finished work: the host waits on the device there.
bool is_sync(const std::string& name) {
  return name.find("Synchronize") != std::string::npos || name == "cudaMemcpy";
}

// Microseconds (with up to three decimals in Kineto's traces) to whole nanoseconds.
int64_t to_ns(double us) {
  return static_cast<int64_t>(std::llround(us * 1000.0));
}

// A lane is one (pid, tid) pair; either may be a number or a string ("CPU functions", "stream 7").
std::string lane_key(const json& e) {
  const auto pid = e.find("pid");
  const auto tid = e.find("tid");
  return (pid == e.end() ? std::string("-") : pid->dump()) + "/" + (tid == e.end() ? std::string("-") : tid->dump());
}

bool is_nccl(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("nccl") != std::string::npos;
}

class Join {
 public:
  Join(const std::string& path, const ExecutionTrace& et) : path_(path), et_(et) {
    k_.path = path;
    k_.cpu_us.assign(et.nodes.size(), std::nullopt);
    k_.gpu_us.assign(et.nodes.size(), 0);
    k_.nccl_us.assign(et.nodes.size(), 0);
  }

  KinetoTimes run() {
    const json doc = load_json_file(path_);
    const json* events = &doc;
    if (doc.is_object()) {
      const auto it = doc.find("traceEvents");
      if (it == doc.end())
        throw Error(path_, "traceEvents", "missing: not a Kineto / chrome trace");
      events = &*it;
      distributed_info(doc);
    }
    if (!events->is_array())
      throw Error(path_, "traceEvents", "is not a list of events");
    collect(*events);
    match_cpu();
    attach_kernels();
    k_.measured = walk_measured_path(timeline_.finish());
    k_.measured.source = path_;
    return std::move(k_);
  }

 private:
  void distributed_info(const json& doc) {
    const auto it = doc.find("distributedInfo");
    if (it == doc.end() || !it->is_object())
      return;
    if (const auto r = it->find("rank"); r != it->end() && r->is_number_integer())
      k_.rank = r->get<int64_t>();
    if (const auto w = it->find("world_size"); w != it->end() && w->is_number_integer())
      k_.world_size = w->get<int64_t>();
  }

  // The string `key` of event i, "" when absent; any other type is refused naming the event (nlohmann's own
  // type_error names neither the file nor the field).
  std::string text(const json& e, size_t i, const char* key) const {
    const auto it = e.find(key);
    if (it == e.end())
      return {};
    if (!it->is_string())
      throw Error(path_, fmt::format("traceEvents[{}].{}", i, key),
                  fmt::format("is {}; expected a string", it->dump()));
    return it->get<std::string>();
  }

  void collect(const json& events) {
    for (size_t i = 0; i < events.size(); ++i) {
      const json& e = events[i];
      if (!e.is_object())
        continue;
      const std::string ph = text(e, i, "ph");
      if (ph == "s" || ph == "f") {
        flow(e, i, ph[0]);
        continue;
      }
      if (ph != "X")
        continue;
      const auto dur = e.find("dur");
      const auto ts = e.find("ts");
      if (dur == e.end() || !dur->is_number() || dur->get<double>() < 0)
        throw Error(path_, fmt::format("traceEvents[{}].dur", i), "missing or negative");
      // A node holds at most 10^12 us (the trace reader's kMaxNodeDurationMicros); past it the rounding would
      // overflow.
      if (!(dur->get<double>() <= static_cast<double>(limits::kMaxNodeDurationMicros)))
        throw Error(path_, fmt::format("traceEvents[{}].dur", i),
                    fmt::format("is {} us; must be at most 10^12 us (kMaxNodeDurationMicros)", dur->dump()));
      if (ts == e.end() || !ts->is_number())
        throw Error(path_, fmt::format("traceEvents[{}].ts", i), "missing or not a number");
      // Nanoseconds as int64 hold +-9.2e15 us (292 years); Kineto's clock is microseconds since the epoch.
      if (!(std::abs(ts->get<double>()) <= 9e15))
        throw Error(path_, fmt::format("traceEvents[{}].ts", i),
                    fmt::format("is {} us; must be within +-9e15 us", ts->dump()));
      const Event ev{&e, ts->get<double>(), static_cast<uint64_t>(dur->get<double>() + 0.5)};
      const std::string cat = text(e, i, "cat");
      const std::string name = text(e, i, "name");  // checked here: attach_kernels() reads it again
      add_to_timeline(e, cat, name, ts->get<double>(), dur->get<double>());
      if (is_gpu(cat)) {
        gpu_.push_back(ev);
      } else if (cat.empty() || cat == "cpu_op" || cat == "user_annotation" || cat == "Operator") {
        if (const auto rf = int_arg(e, "Record function id"))
          by_rf_[static_cast<uint64_t>(*rf)] = ev;
        by_name_[name].push_back(ev);
      }
    }
    for (auto& [name, list] : by_name_)
      std::stable_sort(list.begin(), list.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
  }

  void add_to_timeline(const json& e, const std::string& cat, const std::string& name, double ts, double dur) {
    KinetoEvent ev;
    if (is_gpu(cat))
      ev.kind = EventKind::Gpu;
    else if (is_runtime(cat))
      ev.kind = EventKind::Runtime;
    else if (!is_cpu(cat))
      return;  // annotations of GPU time, profiler overhead, trace markers
    ev.start = to_ns(ts);
    ev.end = ev.start + to_ns(dur);
    ev.lane = timeline_.lane(lane_key(e));
    ev.name = timeline_.name(name);
    ev.comm = ev.kind != EventKind::Runtime && (is_nccl(name) || classify_op(name, nullptr).has_value());
    ev.sync = ev.kind == EventKind::Runtime && is_sync(name);
    timeline_.add(ev, int_arg(e, "correlation"));
  }

  // Kineto links a launch to its kernel by an "ac2g" flow as well as by the "correlation" argument.
  void flow(const json& e, size_t i, char phase) {
    if (text(e, i, "cat") != "ac2g")
      return;
    const auto id = e.find("id");
    const auto ts = e.find("ts");
    if (id == e.end() || !id->is_number_integer() || ts == e.end() || !ts->is_number())
      return;
    timeline_.flow(phase, id->get<int64_t>(), timeline_.lane(lane_key(e)), to_ns(ts->get<double>()));
  }

  // By record-function id when the trace has them, else the k-th event of a name is the k-th node of it.
  void match_cpu() {
    std::vector<uint32_t> order(et_.nodes.size());
    for (uint32_t v = 0; v < order.size(); ++v)
      order[v] = v;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return et_.nodes[a].id < et_.nodes[b].id; });
    for (const uint32_t v : order) {
      const EtNode& n = et_.nodes[v];
      std::optional<Event> ev;
      if (!by_rf_.empty()) {
        const auto it = by_rf_.find(n.rf_id);
        if (it != by_rf_.end())
          ev = it->second;
      } else {
        const auto it = by_name_.find(et_.name_of(n));
        if (it != by_name_.end() && !it->second.empty()) {
          ev = it->second.front();
          it->second.pop_front();
        }
      }
      if (!ev)
        continue;
      k_.cpu_us[v] = ev->dur;
      ++k_.matched;
      if (const auto ext = int_arg(*ev->e, "External id"))
        by_external_[*ext] = v;
    }
  }

  void attach_kernels() {
    for (const Event& g : gpu_) {
      const auto ext = int_arg(*g.e, "External id");
      if (!ext)
        continue;
      const auto it = by_external_.find(*ext);
      if (it == by_external_.end())
        continue;
      ++k_.kernels;
      (is_nccl(g.e->value("name", "")) ? k_.nccl_us : k_.gpu_us)[it->second] += g.dur;
    }
  }

  const std::string& path_;
  const ExecutionTrace& et_;
  KinetoTimes k_;
  std::vector<Event> gpu_;
  std::unordered_map<uint64_t, Event> by_rf_;
  std::unordered_map<std::string, std::deque<Event>> by_name_;
  std::unordered_map<int64_t, uint32_t> by_external_;
  TimelineBuilder timeline_;
};

}  // namespace

KinetoTimes join_kineto(const std::string& path, const ExecutionTrace& et) {
  return Join(path, et).run();
}

}  // namespace chorus::pytorch
