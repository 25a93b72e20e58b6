// DCQCN-style rate control of one message (see rate_control.hpp).
#include "chorus/network/packet/rate_control.hpp"

#include <algorithm>

namespace chorus {

DcqcnRate::DcqcnRate(Bandwidth line)
    : line_(line.bytes_per_second()), current_(line.bytes_per_second()), target_(line.bytes_per_second()) {}

void DcqcnRate::on_congestion() {
  target_ = current_;
  current_ *= 1 - alpha_ / 2;
  alpha_ = (1 - kGain) * alpha_ + kGain;
  steps_since_cut_ = 0;
  clamp();
}

void DcqcnRate::on_loss() {
  // No fast recovery back to the rate that overflowed a buffer: only additive increase from the halved rate.
  current_ /= 2;
  target_ = current_;
  steps_since_cut_ = kFastRecoverySteps;
  clamp();
}

void DcqcnRate::on_period(bool congested) {
  if (congested)
    return;
  alpha_ *= 1 - kGain;
  if (steps_since_cut_ >= kFastRecoverySteps)
    target_ += kAdditiveStep * line_;
  ++steps_since_cut_;
  current_ = (current_ + target_) / 2;
  clamp();
}

void DcqcnRate::clamp() {
  target_ = std::min(target_, line_);
  current_ = std::clamp(current_, line_ / kMinRateDivisor, line_);
  // Within a part in a million of the line rate is the line rate: recovery halves a distance that never reaches 0.
  if (current_ > line_ * (1 - 1e-6))
    current_ = line_;
}

}  // namespace chorus
