// Progress scope, throttle and line text (see progress.hpp).
#include "chorus/core/progress.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace chorus {

ProgressScope::ProgressScope(Progress* sink, std::string_view task, int64_t total)
    : sink_(sink), stride_(std::max<int64_t>(1, total / 1000)) {
  if (sink_ != nullptr)
    sink_->begin(task, total);
}

ProgressScope::~ProgressScope() {
  if (sink_ != nullptr)
    sink_->end();
}

void ProgressScope::report(int64_t units) {
  const int64_t before = done_.fetch_add(units, std::memory_order_relaxed);
  const int64_t done = before + units;
  if (done / stride_ != before / stride_)
    sink_->update(done);
}

void ProgressThrottle::start(double now) {
  start_ = now;
  last_ = now;
  drew_ = false;
}

bool ProgressThrottle::should_draw(double now) {
  if (now - start_ < delay_s_)
    return false;
  if (drew_ && now - last_ < interval_s_)
    return false;
  last_ = now;
  drew_ = true;
  return true;
}

std::string progress_text(std::string_view task, int64_t done, int64_t total, double elapsed_s) {
  if (total <= 0)
    return fmt::format("{} {}, {:.1f} s", task, done, elapsed_s);
  constexpr int64_t kWidth = 30;
  const double fraction = std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0);
  const auto filled = static_cast<size_t>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  return fmt::format("{} [{}] {:5.1f} % {:.1f} s", task, bar, 100.0 * fraction, elapsed_s);
}

}  // namespace chorus
