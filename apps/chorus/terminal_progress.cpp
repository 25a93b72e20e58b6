// The terminal progress line (see terminal_progress.hpp).
#include "terminal_progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace chorus::cli {

namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class TerminalProgress final : public Progress {
 public:
  explicit TerminalProgress(double delay_s) : throttle_(delay_s) {}

  void begin(std::string_view task, int64_t total) override {
    const std::lock_guard lock(mutex_);
    task_ = task;
    total_ = total;
    start_ = seconds_now();
    throttle_.start(start_);
  }

  void update(int64_t done) override {
    const std::lock_guard lock(mutex_);
    const double now = seconds_now();
    if (!throttle_.should_draw(now))
      return;
    // \r and "erase to end of line" redraw in place without scrolling.
    std::fprintf(stderr, "\r%s\033[K", progress_text(task_, done, total_, now - start_).c_str());
    std::fflush(stderr);
  }

  void end() override {
    const std::lock_guard lock(mutex_);
    if (throttle_.drew()) {
      std::fputs("\r\033[K", stderr);  // the results follow on a clean line
      std::fflush(stderr);
    }
    throttle_.start(seconds_now());  // a later job on the same sink starts silent again
  }

 private:
  std::mutex mutex_;
  ProgressThrottle throttle_;
  std::string task_;
  int64_t total_ = 0;
  double start_ = 0;
};

double delay_from_environment() {
  const char* text = std::getenv("CHORUS_PROGRESS_DELAY");
  if (text == nullptr)
    return 2.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return end != text && value >= 0 ? value : 2.0;
}

}  // namespace

std::unique_ptr<Progress> terminal_progress(bool json) {
  if (json || isatty(STDERR_FILENO) == 0)
    return nullptr;
  return std::make_unique<TerminalProgress>(delay_from_environment());
}

}  // namespace chorus::cli
