// Progress of long library jobs: the library reports units of work done to a Progress the caller passes in (or
// none); whether and how to show it is the caller's business. No printing here, no global state.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace chorus {

// Receives one job's progress. update() may be called from several threads; implementations synchronise.
class Progress {
 public:
  virtual ~Progress() = default;
  virtual void begin(std::string_view task, int64_t total) = 0;  // total 0: unknown (a count is shown)
  virtual void update(int64_t done) = 0;                         // units done so far
  virtual void end() = 0;
};

// One job's progress over a nullable Progress*: begin() on construction, end() on destruction (also when an
// exception leaves the job); every call is a no-op without a sink, so library loops call advance() freely.
class ProgressScope {
 public:
  ProgressScope(Progress* sink, std::string_view task, int64_t total);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

  void advance(int64_t units = 1) {
    if (sink_ != nullptr)
      report(units);  // out of line: the common case (no sink) costs a compare in hot loops
  }

 private:
  void report(int64_t units);

  Progress* sink_;
  int64_t stride_;  // the sink hears about every stride_-th unit: a thousand updates per job at most
  std::atomic<int64_t> done_{0};
};

// When to draw: only once a job has run `delay_s` (short jobs stay silent), then at most every `interval_s`.
// Times are seconds on any monotonic clock, passed in so that tests drive it with a fake one.
class ProgressThrottle {
 public:
  explicit ProgressThrottle(double delay_s = 2.0, double interval_s = 0.25)
      : delay_s_(delay_s), interval_s_(interval_s) {}

  void start(double now);
  // True when a line should be drawn now (and records it as drawn).
  bool should_draw(double now);
  // Whether anything was drawn since start(): the caller then finishes the line at the end.
  bool drew() const { return drew_; }

 private:
  double delay_s_;
  double interval_s_;
  double start_ = 0;
  double last_ = 0;
  bool drew_ = false;
};

// The text of one progress line (no newline): "synth [########........] 40.0 % 12.3 s" with a known total,
// "synth: runs finished 12, 12.3 s" without one.
std::string progress_text(std::string_view task, int64_t done, int64_t total, double elapsed_s);

}  // namespace chorus
