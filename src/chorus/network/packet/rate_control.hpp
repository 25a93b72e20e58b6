// DcqcnRate: the sending rate of one message under the packet model's rate-based transport, in the manner of
// DCQCN, the congestion control of RoCEv2 NICs (Zhu et al., "Congestion Control for Large-Scale RDMA
// Deployments", SIGCOMM 2015).
//
// - A message starts at its first link's line rate (RDMA NICs do not slow-start).
// - A congestion notification (CNP, sent by the receiver for ECN-marked packets) cuts the rate:
//     target = current; current *= 1 - alpha/2; alpha = (1-g) alpha + g.
// - A loss (the receiver's NAK of a gap, or a timeout) halves the rate and sets the target there: drop-tail
//   fabrics give no other signal, and recovering fast to the rate that overflowed a buffer only loses again.
// - Every period without a CNP, alpha decays, alpha *= 1-g, and the rate recovers: the first kFastRecoverySteps
//   periods halve the distance to the target (fast recovery), later ones first raise the target by an additive
//   step (additive increase). The rate never exceeds the line rate nor falls below line / kMinRateDivisor.
// Parameters follow the paper's form (g = 1/256, 55 us period, 5 fast-recovery steps); the additive step is 1% of
// the line rate, a value picked so that a rate recovers within a few hundred periods, not a calibration.
//
//   DcqcnRate r(Bandwidth::gb_per_s(50));
//   r.on_congestion();      // rate 25 GB/s
//   r.on_period(false);     // fast recovery: 37.5 GB/s
#pragma once

#include "chorus/core/units.hpp"

namespace chorus {

class DcqcnRate {
 public:
  static constexpr double kGain = 1.0 / 256;
  static constexpr Time kPeriod = Time::us(55);
  static constexpr int kFastRecoverySteps = 5;
  static constexpr double kAdditiveStep = 0.01;  // of the line rate
  static constexpr double kMinRateDivisor = 1024;

  explicit DcqcnRate(Bandwidth line);

  Bandwidth rate() const { return Bandwidth::bytes_per_s(current_); }
  // True once the rate has been cut and not yet fully recovered: the sender then runs the period timer.
  bool recovering() const { return current_ < line_; }

  void on_congestion();
  void on_loss();
  // One period ended; `congested`: a CNP arrived in it (no recovery then, the cut already happened).
  void on_period(bool congested);

 private:
  void clamp();

  double line_;     // B/s
  double current_;  // B/s
  double target_;   // B/s
  double alpha_ = 1.0;
  int steps_since_cut_ = 0;
};

}  // namespace chorus
