// The packet-level simulation on ns-3 (see packet_network.hpp); the one translation unit that includes ns-3.
#include "chorus/network/packet/packet_network.hpp"

#include <fmt/format.h>
#include <ns3/boolean.h>
#include <ns3/data-rate.h>
#include <ns3/double.h>
#include <ns3/header.h>
#include <ns3/node-container.h>
#include <ns3/packet.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/queue-disc.h>
#include <ns3/queue.h>
#include <ns3/red-queue-disc.h>
#include <ns3/rng-seed-manager.h>
#include <ns3/simulator.h>
#include <ns3/string.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/traffic-control-layer.h>
#include <ns3/uinteger.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/network/dag_tracker.hpp"
#include "chorus/network/packet/go_back_n.hpp"
#include "chorus/network/packet/rate_control.hpp"

namespace chorus {
namespace {

// PPP frames carry only the IPv4 and IPv6 EtherTypes; chorus packets borrow IPv4's (no node runs an IP stack).
constexpr uint16_t kEtherType = 0x0800;
constexpr uint32_t kPppHeader = 2;
// The receiver acknowledges every this many in-order packets, so that a timeout resends only what was lost.
constexpr uint32_t kAckEvery = 64;
// DCQCN's receiver sends at most one CNP per message per this interval.
constexpr Time kCnpInterval = Time::us(50);
// More retransmissions than this many times the packets the schedule needs (plus a floor) mean the fabric is in
// congestion collapse: the run stops with an error instead of grinding on.
constexpr uint64_t kCollapseFactor = 32;
constexpr uint64_t kCollapseFloor = 1'000'000;
// Sequence numbers and hop counts travel in 32 and 16 bits.
constexpr uint64_t kMaxPacketsPerMessage = uint64_t{1} << 31;
constexpr size_t kMaxHops = 65535;

ns3::Time to_ns3(Time t) {
  return ns3::PicoSeconds(t.picoseconds());
}
Time now() {
  return Time::ps(ns3::Simulator::Now().GetPicoSeconds());
}

// What a chorus packet carries besides its payload: the message (op), the packet's place in it, the hop it is
// on, and the ECN congestion-experienced bit. Padded to RoCEv2's header bytes (with PPP's 2, kPacketHeader).
class ChorusHeader final : public ns3::Header {
 public:
  uint32_t op = 0;
  uint32_t seq = 0;
  uint16_t hop = 0;
  bool ce = false;

  static ns3::TypeId GetTypeId() {
    static const ns3::TypeId tid = ns3::TypeId("chorus::PacketHeader").SetParent<ns3::Header>().SetGroupName("chorus");
    return tid;
  }
  ns3::TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return static_cast<uint32_t>(kPacketHeader.count()) - kPppHeader; }
  void Serialize(ns3::Buffer::Iterator i) const override {
    i.WriteU32(op);
    i.WriteU32(seq);
    i.WriteU16(hop);
    i.WriteU8(ce ? 1 : 0);
    i.WriteU8(0, GetSerializedSize() - kFields);
  }
  uint32_t Deserialize(ns3::Buffer::Iterator i) override {
    op = i.ReadU32();
    seq = i.ReadU32();
    hop = i.ReadU16();
    ce = i.ReadU8() != 0;
    return GetSerializedSize();
  }
  void Print(std::ostream& os) const override { os << "op=" << op << " seq=" << seq << " hop=" << hop << " ce=" << ce; }

 private:
  static constexpr uint32_t kFields = 11;
};

// A packet in a queue disc, its header kept apart so that RED can set the CE bit (as ns-3's IPv4 items do).
class ChorusItem final : public ns3::QueueDiscItem {
 public:
  ChorusItem(ns3::Ptr<ns3::Packet> payload, const ns3::Address& to, const ChorusHeader& header)
      : ns3::QueueDiscItem(std::move(payload), to, kEtherType), header_(header) {}
  uint32_t GetSize() const override { return GetPacket()->GetSize() + header_.GetSerializedSize(); }
  void AddHeader() override { GetPacket()->AddHeader(header_); }
  bool Mark() override {
    header_.ce = true;
    return true;
  }

 private:
  ChorusHeader header_;
};

enum class Control : uint8_t { Ack, Nak, Cnp };

// One transfer in flight: its sender's and receiver's state side by side (control messages need no lookup).
struct Message {
  Message(OpId id, std::span<const uint32_t> path, Bytes size, uint32_t packet_count, Bandwidth line)
      : op(id), route(path), bytes(size), sender(packet_count), receiver(packet_count), rate(line) {}
  OpId op;
  std::span<const uint32_t> route;
  Bytes bytes;
  GoBackNSender sender;
  GoBackNReceiver receiver;
  DcqcnRate rate;
  Time next_send;      // pacing: the earliest the next packet may leave
  Time control_delay;  // ACK, NAK and CNP back to the sender: the route's latency
  Time timeout;        // retransmission timeout
  uint32_t highest_sent = 0;
  std::optional<Time> last_cnp;
  bool cnp_in_period = false;
  bool period_timer = false;
  bool timeout_armed = false;
  uint32_t acked_at_arm = 0;
};

// A sender's output port: the messages leaving through it take turns, each paced at its own rate, the port at
// its line rate.
struct Port {
  std::vector<uint32_t> messages;
  size_t cursor = 0;
  Time free_at;
  bool wake_pending = false;
  Time wake_at;
  ns3::EventId wake;
};

// Ends the process-wide ns-3 simulation however the run ends (an Error thrown from an event included).
struct SimulatorSession {
  SimulatorSession() = default;
  SimulatorSession(const SimulatorSession&) = delete;
  SimulatorSession& operator=(const SimulatorSession&) = delete;
  ~SimulatorSession() { ns3::Simulator::Destroy(); }
};

class PacketSimulation {
 public:
  PacketSimulation(const Schedule& schedule, const Topology& topology, const ResourceRoutes& routes,
                   const PacketOptions& options)
      : schedule_(schedule), topology_(topology), routes_(routes), options_(options), dag_(schedule) {
    CHORUS_ASSERT(routes.resource_count() == topology.link_count(),
                  "the packet model needs physical links as resources ({} resources, {} links)",
                  routes.resource_count(), topology.link_count());
    result_.finish.assign(schedule.size(), Time::zero());
    result_.links.resize(topology.link_count());
    ports_.resize(topology.link_count());
    for (uint32_t op = 0; op < schedule.size(); ++op) {
      if (!schedule.is_transfer(OpId{op}))
        continue;
      const uint64_t packets = packet_count(schedule.bytes(OpId{op}));
      if (packets > kMaxPacketsPerMessage) {
        throw Error("", Argument{"size"},
                    fmt::format("a message of {} is {} packets; the packet model sends at most {} per message",
                                to_string(schedule.bytes(OpId{op})), packets, kMaxPacketsPerMessage));
      }
      needed_packets_ += packets;
      CHORUS_ASSERT(routes.route(OpId{op}).size() <= kMaxHops, "transfer {} crosses {} links", op,
                    routes.route(OpId{op}).size());
    }
  }

  PacketRunResult run() {
    if (ns3::Time::GetResolution() != ns3::Time::PS)
      ns3::Time::SetResolution(ns3::Time::PS);
    ns3::RngSeedManager::SetSeed(1);
    ns3::RngSeedManager::SetRun(1);
    const SimulatorSession session;
    build_network();
    for (OpId op : dag_.sources())
      ns3::Simulator::Schedule(to_ns3(schedule_.pre_delay(op)), &PacketSimulation::start, this, op.value);
    ns3::Simulator::Run();
    result_.events = ns3::Simulator::GetEventCount();
    CHORUS_ASSERT(dag_.unfinished() == 0, "{} ops never ran (a dependency was never met)", dag_.unfinished());
    collect_link_stats();
    return std::move(result_);
  }

 private:
  static uint64_t packet_count(Bytes bytes) {
    const int64_t payload = kPacketPayload.count();
    return static_cast<uint64_t>(std::max<int64_t>(1, (bytes.count() + payload - 1) / payload));
  }

  // --- the fabric ---

  void build_network() {
    nodes_.Create(topology_.node_count());
    if (options_.ecn) {
      tc_.resize(topology_.node_count());
      for (uint32_t n = 0; n < topology_.node_count(); ++n) {
        tc_[n] = ns3::CreateObject<ns3::TrafficControlLayer>();
        nodes_.Get(n)->AggregateObject(tc_[n]);
      }
    }
    out_.resize(topology_.link_count());
    queues_.resize(topology_.link_count());
    device_queues_.resize(topology_.link_count());
    for (uint32_t l = 0; l < topology_.link_count(); ++l)
      add_link(LinkId{l});
  }

  void add_link(LinkId link) {
    const Bandwidth bandwidth = topology_.link_bandwidth(link);
    const ns3::DataRate rate(static_cast<uint64_t>(std::llround(bandwidth.bytes_per_second() * 8)));
    ns3::PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(rate));
    p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(static_cast<uint32_t>(kMaxWirePacket.count())));
    p2p.SetChannelAttribute("Delay", ns3::TimeValue(to_ns3(topology_.link_latency(link))));
    // Drop-tail: the device's own queue is the port's buffer (counting bytes on the wire); packets go straight
    // to the device. RED/ECN: one packet waits in the device, the buffer is the RED queue disc in front of it
    // (traffic control costs events per packet: drop-tail runs about twice as fast).
    if (options_.ecn) {
      p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns3::StringValue("1p"));
    } else {
      p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                   ns3::QueueSizeValue(
                       ns3::QueueSize(ns3::QueueSizeUnit::BYTES, static_cast<uint32_t>(options_.queue.count()))));
    }
    const ns3::NetDeviceContainer devices =
        p2p.Install(nodes_.Get(topology_.link_src(link).value), nodes_.Get(topology_.link_dst(link).value));
    out_[link.value] = devices.Get(0);
    device_queues_[link.value] = ns3::DynamicCast<ns3::PointToPointNetDevice>(devices.Get(0))->GetQueue();
    nodes_.Get(topology_.link_dst(link).value)
        ->RegisterProtocolHandler(ns3::MakeCallback(&PacketSimulation::receive, this), kEtherType, devices.Get(1));
    if (options_.ecn)
      install_red(link, rate);
  }

  void install_red(LinkId link, const ns3::DataRate& rate) {
    const ns3::QueueSizeValue size(
        ns3::QueueSize(ns3::QueueSizeUnit::BYTES, static_cast<uint32_t>(options_.queue.count())));
    ns3::TrafficControlHelper tch;
    {
      // Marking from an eighth of the buffer, with probability rising to 10% at half of it; above, every packet
      // is marked (no early drops); the instantaneous queue (QW 1), as DCQCN switches mark.
      const double queue = static_cast<double>(options_.queue.count());
      const double min_th = std::max(queue / 8, static_cast<double>(kMaxWirePacket.count()));
      const double max_th = std::max(queue / 2, min_th + static_cast<double>(kMaxWirePacket.count()));
      tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", size, "MinTh", ns3::DoubleValue(min_th), "MaxTh",
                           ns3::DoubleValue(max_th), "QW", ns3::DoubleValue(1.0), "LInterm", ns3::DoubleValue(10),
                           "UseEcn", ns3::BooleanValue(true), "UseHardDrop", ns3::BooleanValue(false), "MeanPktSize",
                           ns3::UintegerValue(static_cast<uint32_t>(kMaxWirePacket.count())), "LinkBandwidth",
                           ns3::DataRateValue(rate), "LinkDelay", ns3::TimeValue(to_ns3(topology_.link_latency(link))));
    }
    const ns3::Ptr<ns3::QueueDisc> disc = tch.Install(out_[link.value]).Get(0);
    if (const ns3::Ptr<ns3::RedQueueDisc> red = ns3::DynamicCast<ns3::RedQueueDisc>(disc))
      red->AssignStreams(link.value);  // a fixed random stream per port: runs repeat exactly
    queues_[link.value] = disc;
  }

  void collect_link_stats() {
    for (uint32_t l = 0; l < topology_.link_count(); ++l) {
      // Every packet that leaves the port passes its device's queue, which counts PPP's bytes too.
      const ns3::Ptr<ns3::Queue<ns3::Packet>>& device = device_queues_[l];
      const Bytes carried(static_cast<int64_t>(device->GetTotalReceivedBytes()));
      result_.links.bytes[l] = static_cast<double>(carried.count());
      result_.links.busy[l] = transfer_time(carried, topology_.link_bandwidth(LinkId{l}));
    }
  }

  // --- the schedule ---

  void start(uint32_t op) {
    if (schedule_.is_transfer(OpId{op}))
      open_message(OpId{op});
    else
      finish(OpId{op});
  }

  void finish(OpId op) {
    const Time t = now();
    result_.finish[op.value] = t;
    result_.makespan = std::max(result_.makespan, t);
    ready_.clear();
    dag_.finish(op, ready_);
    for (OpId next : ready_)
      ns3::Simulator::Schedule(to_ns3(schedule_.pre_delay(next)), &PacketSimulation::start, this, next.value);
  }

  void open_message(OpId op) {
    const std::span<const uint32_t> route = routes_.route(op);
    CHORUS_ASSERT(!route.empty(), "transfer {} has no route", op.value);
    const Bytes bytes = schedule_.bytes(op);
    auto [it, inserted] = messages_.try_emplace(op.value, op, route, bytes, static_cast<uint32_t>(packet_count(bytes)),
                                                topology_.link_bandwidth(LinkId{route[0]}));
    CHORUS_ASSERT(inserted, "transfer {} started twice", op.value);
    Message& m = it->second;
    Time worst_queueing = Time::zero();
    for (uint32_t l : route) {
      m.control_delay += topology_.link_latency(LinkId{l});
      const Bandwidth b = topology_.link_bandwidth(LinkId{l});
      worst_queueing += transfer_time(options_.queue + kMaxWirePacket, b);
    }
    // Longer than the round trip with every queue on the way full: a timeout then means a lost packet.
    m.timeout = m.control_delay * 2 + worst_queueing + Time::us(10);
    m.next_send = now();
    ports_[route[0]].messages.push_back(op.value);
    wake(route[0], now());
  }

  // --- the sender's port ---

  void wake(uint32_t link, Time at) {
    Port& p = ports_[link];
    if (p.wake_pending) {
      if (p.wake_at <= at)
        return;
      p.wake.Cancel();
    }
    p.wake_pending = true;
    p.wake_at = at;
    p.wake = ns3::Simulator::Schedule(to_ns3(at - now()), &PacketSimulation::service, this, link);
  }

  // Sends the next packet of the next message (round robin) whose pacing allows it, or sleeps until one does.
  void service(uint32_t link) {
    Port& p = ports_[link];
    p.wake_pending = false;
    const Time t = now();
    if (t < p.free_at) {
      wake(link, p.free_at);
      return;
    }
    std::optional<Time> earliest;
    const size_t n = p.messages.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (p.cursor + k) % n;
      Message& m = messages_.at(p.messages[i]);
      if (!m.sender.has_next())
        continue;
      if (m.next_send <= t) {
        const Bytes wire = send_packet(m, link);
        p.cursor = (i + 1) % n;
        p.free_at = t + transfer_time(wire, topology_.link_bandwidth(LinkId{link}));
        wake(link, p.free_at);
        return;
      }
      earliest = std::min(earliest.value_or(m.next_send), m.next_send);
    }
    if (earliest)
      wake(link, std::max(*earliest, p.free_at));
  }

  Bytes send_packet(Message& m, uint32_t link) {
    const uint32_t seq = m.sender.take_next();
    if (seq < m.highest_sent)
      ++retransmitted_;
    m.highest_sent = std::max(m.highest_sent, seq + 1);
    ++packets_sent_;
    if (retransmitted_ > kCollapseFactor * needed_packets_ + kCollapseFloor) {
      throw Error("", Argument{"queue"},
                  fmt::format("the fabric collapsed under loss: {} of {} packets sent were retransmissions; give "
                              "the ports more buffer (--queue) or mark ECN (--ecn)",
                              retransmitted_, packets_sent_));
    }
    const int64_t offset = int64_t{seq} * kPacketPayload.count();
    const Bytes payload(std::min(kPacketPayload.count(), m.bytes.count() - offset));
    const Bytes wire = payload + kPacketHeader;
    m.next_send = now() + transfer_time(wire, m.rate.rate());
    ChorusHeader header;
    header.op = m.op.value;
    header.seq = seq;
    forward(link, ns3::Create<ns3::Packet>(static_cast<uint32_t>(payload.count())), header);
    if (!m.sender.has_next())
      arm_timeout(m);
    return wire;
  }

  // --- the fabric's forwarding ---

  void forward(uint32_t link, ns3::Ptr<ns3::Packet> payload, const ChorusHeader& header) {
    const ns3::Ptr<ns3::NetDevice>& device = out_[link];
    // Queues only grow on an arrival: their peak is seen here (cheaper than tracing every change).
    uint32_t& peak = result_.links.peak_flows[link];
    if (options_.ecn) {
      tc_[topology_.link_src(LinkId{link}).value]->Send(
          device, ns3::Create<ChorusItem>(std::move(payload), device->GetBroadcast(), header));
      peak = std::max(peak, queues_[link]->GetNPackets());
      return;
    }
    payload->AddHeader(header);
    device->Send(payload, device->GetBroadcast(), kEtherType);
    peak = std::max(peak, device_queues_[link]->GetNPackets());
  }

  void receive(ns3::Ptr<ns3::NetDevice> /*device*/, ns3::Ptr<const ns3::Packet> packet, uint16_t /*protocol*/,
               const ns3::Address& /*from*/, const ns3::Address& /*to*/, ns3::NetDevice::PacketType /*type*/) {
    const ns3::Ptr<ns3::Packet> payload = packet->Copy();
    ChorusHeader header;
    payload->RemoveHeader(header);
    const auto it = messages_.find(header.op);
    if (it == messages_.end())
      return;  // a late copy of a message already acknowledged
    Message& m = it->second;
    ++header.hop;
    if (header.hop < m.route.size()) {
      forward(m.route[header.hop], payload, header);
      return;
    }
    deliver(m, header);
  }

  // --- the receiver ---

  void deliver(Message& m, const ChorusHeader& header) {
    if (header.ce && (!m.last_cnp || now() - *m.last_cnp >= kCnpInterval)) {
      m.last_cnp = now();
      send_control(m, Control::Cnp, 0);
    }
    switch (m.receiver.on_packet(header.seq)) {
      case GoBackNReceiver::Arrival::InOrder:
        if (m.receiver.expected() % kAckEvery == 0)
          send_control(m, Control::Ack, m.receiver.expected());
        break;
      case GoBackNReceiver::Arrival::Complete:
        finish(m.op);
        send_control(m, Control::Ack, m.receiver.expected());
        break;
      case GoBackNReceiver::Arrival::Gap:
        if (m.receiver.take_nak(header.seq))
          send_control(m, Control::Nak, m.receiver.expected());
        break;
      case GoBackNReceiver::Arrival::Duplicate:
        break;
    }
  }

  void send_control(const Message& m, Control kind, uint32_t value) {
    ns3::Simulator::Schedule(to_ns3(m.control_delay), &PacketSimulation::control, this, m.op.value, kind, value);
  }

  // --- the sender's reactions ---

  void control(uint32_t op, Control kind, uint32_t value) {
    const auto it = messages_.find(op);
    if (it == messages_.end())
      return;
    Message& m = it->second;
    switch (kind) {
      case Control::Ack:
        m.sender.on_ack(value);
        if (m.sender.done())
          close(m);
        return;
      case Control::Nak:
        m.sender.on_nak(value);
        m.rate.on_loss();
        start_period(m);
        wake(m.route[0], now());
        return;
      case Control::Cnp:
        m.rate.on_congestion();
        m.cnp_in_period = true;
        start_period(m);
        return;
    }
  }

  void close(Message& m) {
    Port& p = ports_[m.route[0]];
    const auto pos = std::find(p.messages.begin(), p.messages.end(), m.op.value);
    CHORUS_ASSERT(pos != p.messages.end(), "transfer {} is not on its port", m.op.value);
    const size_t index = static_cast<size_t>(pos - p.messages.begin());
    p.messages.erase(pos);
    if (p.cursor > index)
      --p.cursor;
    if (p.cursor >= p.messages.size())
      p.cursor = 0;
    messages_.erase(m.op.value);  // pending timers find nothing and return
  }

  void start_period(Message& m) {
    if (m.period_timer)
      return;
    m.period_timer = true;
    ns3::Simulator::Schedule(to_ns3(DcqcnRate::kPeriod), &PacketSimulation::period, this, m.op.value);
  }

  void period(uint32_t op) {
    const auto it = messages_.find(op);
    if (it == messages_.end())
      return;
    Message& m = it->second;
    m.period_timer = false;
    m.rate.on_period(m.cnp_in_period);
    m.cnp_in_period = false;
    if (m.rate.recovering())
      start_period(m);
  }

  void arm_timeout(Message& m) {
    if (m.timeout_armed)
      return;
    m.timeout_armed = true;
    m.acked_at_arm = m.sender.acked();
    ns3::Simulator::Schedule(to_ns3(m.timeout), &PacketSimulation::timeout, this, m.op.value);
  }

  void timeout(uint32_t op) {
    const auto it = messages_.find(op);
    if (it == messages_.end())
      return;
    Message& m = it->second;
    m.timeout_armed = false;
    if (m.sender.has_next())
      return;  // already resending (a NAK came); re-armed when the last packet leaves again
    if (m.sender.acked() != m.acked_at_arm) {
      arm_timeout(m);  // acknowledgements still arrive: wait on
      return;
    }
    m.sender.on_timeout();
    m.rate.on_loss();
    start_period(m);
    wake(m.route[0], now());
  }

  const Schedule& schedule_;
  const Topology& topology_;
  const ResourceRoutes& routes_;
  const PacketOptions options_;
  DagTracker dag_;
  std::vector<OpId> ready_;
  uint64_t needed_packets_ = 0;  // by the schedule, one try each
  uint64_t packets_sent_ = 0;    // by the senders, retransmissions included
  uint64_t retransmitted_ = 0;
  ns3::NodeContainer nodes_;
  std::vector<ns3::Ptr<ns3::TrafficControlLayer>> tc_;            // per node, with RED/ECN
  std::vector<ns3::Ptr<ns3::Queue<ns3::Packet>>> device_queues_;  // per link: drop-tail, the port's buffer
  std::vector<ns3::Ptr<ns3::NetDevice>> out_;                     // per link: its sending device
  std::vector<ns3::Ptr<ns3::QueueDisc>> queues_;                  // per link, with RED/ECN: the port's buffer
  std::vector<Port> ports_;                                       // per link, when messages start on it
  std::unordered_map<uint32_t, Message> messages_;                // by op
  PacketRunResult result_;
};

}  // namespace

PacketRunResult simulate_packets(const Schedule& schedule, const Topology& topology, const ResourceRoutes& routes,
                                 const PacketOptions& options) {
  return PacketSimulation(schedule, topology, routes, options).run();
}

}  // namespace chorus
