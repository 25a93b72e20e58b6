// Go-back-N sender and receiver state (see go_back_n.hpp).
#include "chorus/network/packet/go_back_n.hpp"

#include <algorithm>

namespace chorus {

void GoBackNSender::on_nak(uint32_t expected) {
  on_ack(expected);
  next_ = std::min(next_, acked_);
}

void GoBackNSender::on_ack(uint32_t received) {
  acked_ = std::max(acked_, std::min(received, packets_));
  next_ = std::max(next_, acked_);
}

GoBackNReceiver::Arrival GoBackNReceiver::on_packet(uint32_t seq) {
  if (seq < expected_ || expected_ == packets_)
    return Arrival::Duplicate;
  highest_ = std::max(highest_, seq + 1);
  if (seq > expected_)
    return Arrival::Gap;
  ++expected_;
  naked_ = false;
  return expected_ == packets_ ? Arrival::Complete : Arrival::InOrder;
}

bool GoBackNReceiver::take_nak(uint32_t seq) {
  if (naked_ && seq >= naked_at_)
    return false;  // sent before the sender heard the last NAK
  naked_ = true;
  naked_at_ = highest_;
  return true;
}

}  // namespace chorus
