// Tests of the progress plumbing: the scope's calls to its sink, the throttle (driven by a fake clock: times are
// plain numbers) and the text of a progress line.
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/core/progress.hpp"

namespace chorus {
namespace {

// Records every call, in order.
class RecordingProgress final : public Progress {
 public:
  void begin(std::string_view task, int64_t total) override { calls.push_back(fmt(task, total)); }
  void update(int64_t done) override { updates.push_back(done); }
  void end() override { calls.push_back("end"); }

  std::vector<std::string> calls;
  std::vector<int64_t> updates;

 private:
  static std::string fmt(std::string_view task, int64_t total) {
    return "begin " + std::string(task) + " " + std::to_string(total);
  }
};

TEST(Progress, ScopeBeginsAndEnds) {
  RecordingProgress sink;
  {
    ProgressScope scope(&sink, "job", 3);
    scope.advance();
    scope.advance(2);
  }
  EXPECT_EQ(sink.calls, (std::vector<std::string>{"begin job 3", "end"}));
  EXPECT_EQ(sink.updates, (std::vector<int64_t>{1, 3}));
}

TEST(Progress, ScopeEndsWhenAnExceptionLeavesTheJob) {
  RecordingProgress sink;
  try {
    ProgressScope scope(&sink, "job", 0);
    scope.advance();
    throw std::runtime_error("bad input");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(sink.calls.back(), "end");
}

TEST(Progress, ScopeReportsAThousandUpdatesAtMost) {
  RecordingProgress sink;
  {
    ProgressScope scope(&sink, "nodes", 1'000'000);
    for (int i = 0; i < 1'000'000; ++i)
      scope.advance();
  }
  // Every 1000th unit: 1000, 2000, ..., 1'000'000.
  ASSERT_EQ(sink.updates.size(), 1000u);
  EXPECT_EQ(sink.updates.front(), 1000);
  EXPECT_EQ(sink.updates.back(), 1'000'000);
}

TEST(Progress, ScopeWithoutSinkDoesNothing) {
  ProgressScope scope(nullptr, "job", 10);
  scope.advance(5);  // must not crash
  SUCCEED();
}

TEST(ProgressThrottle, SilentForTheFirstTwoSecondsThenThrottled) {
  ProgressThrottle throttle(2.0, 0.25);
  throttle.start(100.0);
  EXPECT_FALSE(throttle.should_draw(100.5));
  EXPECT_FALSE(throttle.should_draw(101.99));
  EXPECT_FALSE(throttle.drew());  // a job that ends here printed nothing
  EXPECT_TRUE(throttle.should_draw(102.0));
  EXPECT_TRUE(throttle.drew());
  EXPECT_FALSE(throttle.should_draw(102.1));   // 0.1 s after the last line
  EXPECT_FALSE(throttle.should_draw(102.24));  // 0.24 s
  EXPECT_TRUE(throttle.should_draw(102.25));
  EXPECT_FALSE(throttle.should_draw(102.3));
  EXPECT_TRUE(throttle.should_draw(110.0));
}

TEST(ProgressThrottle, RestartIsSilentAgain) {
  ProgressThrottle throttle(2.0, 0.25);
  throttle.start(0.0);
  EXPECT_TRUE(throttle.should_draw(5.0));
  throttle.start(10.0);
  EXPECT_FALSE(throttle.drew());
  EXPECT_FALSE(throttle.should_draw(11.0));
  EXPECT_TRUE(throttle.should_draw(12.0));
}

TEST(ProgressThrottle, ZeroDelayDrawsAtOnce) {
  ProgressThrottle throttle(0.0, 0.25);
  throttle.start(7.0);
  EXPECT_TRUE(throttle.should_draw(7.0));
}

TEST(ProgressText, BarWithAKnownTotal) {
  // 25 % of a 30-character bar: 7.5 -> 7 filled.
  EXPECT_EQ(progress_text("sim", 25, 100, 3.04), "sim [#######.......................]  25.0 % 3.0 s");
  EXPECT_EQ(progress_text("x", 10, 10, 0.0), "x [##############################] 100.0 % 0.0 s");
  EXPECT_EQ(progress_text("x", 12, 10, 0.0), "x [##############################] 100.0 % 0.0 s");  // clamped
}

TEST(ProgressText, CountWithoutATotal) {
  EXPECT_EQ(progress_text("bound: max-flows", 1234, 0, 12.34), "bound: max-flows 1234, 12.3 s");
}

}  // namespace
}  // namespace chorus
