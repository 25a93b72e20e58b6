// Go-back-N reliability of one message, as RoCE NICs recover from loss: the receiver accepts packets only in
// order, answers the first packet past a gap with a NAK naming the packet it expects, and the sender resends
// from there. Packets sent before the sender heard the NAK still arrive past the gap and stay silent; a packet
// past the gap that is no newer than those seen at the NAK is a resent one, so the resent expected packet was
// lost too: the receiver NAKs again. A sender that has sent everything and heard nothing for a timeout resends from the
// last cumulative acknowledgement (a lost tail packet leaves no later packet to reveal the gap).
//
//   GoBackNSender s(3);  GoBackNReceiver r(3);
//   r.on_packet(s.take_next());   // InOrder (packet 0)
//   s.take_next();  s.take_next(); // packet 1 is lost, 2 arrives:
//   r.on_packet(2);               // Gap, r.take_nak(2): NAK(1) -> s.on_nak(1) resends 1, 2
#pragma once

#include <cstdint>

namespace chorus {

class GoBackNSender {
 public:
  explicit GoBackNSender(uint32_t packets) : packets_(packets) {}
  uint32_t packets() const { return packets_; }
  bool has_next() const { return next_ < packets_; }
  uint32_t take_next() { return next_++; }
  // Every packet below `expected` arrived; resend from `expected`.
  void on_nak(uint32_t expected);
  // Every packet below `received` arrived.
  void on_ack(uint32_t received);
  // Nothing heard for a timeout: resend from the last acknowledgement.
  void on_timeout() { next_ = acked_; }
  uint32_t acked() const { return acked_; }
  bool done() const { return acked_ == packets_; }

 private:
  uint32_t packets_;
  uint32_t next_ = 0;
  uint32_t acked_ = 0;
};

class GoBackNReceiver {
 public:
  enum class Arrival : uint8_t { InOrder, Complete, Gap, Duplicate };
  explicit GoBackNReceiver(uint32_t packets) : packets_(packets) {}
  Arrival on_packet(uint32_t seq);
  uint32_t expected() const { return expected_; }
  // After a Gap for `seq`: whether to NAK: the first gap before `expected()`, or a resent packet past it.
  bool take_nak(uint32_t seq);

 private:
  uint32_t packets_;
  uint32_t expected_ = 0;
  uint32_t highest_ = 0;   // the highest packet seen, plus one
  bool naked_ = false;     // a NAK for expected_ was sent ...
  uint32_t naked_at_ = 0;  // ... when highest_ was this
};

}  // namespace chorus
