// Training-step time model (see time_model.hpp).
#include "chorus/netopt/time_model.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "chorus/core/assert.hpp"

namespace chorus::netopt {

std::vector<double> dimension_bytes(CollectiveKind kind, double bytes, const std::vector<uint32_t>& groups) {
  const size_t dims = groups.size();
  std::vector<double> s(dims, 0.0);
  double m = bytes;
  if (kind == CollectiveKind::AllGather) {
    for (size_t d = dims; d-- > 0;) {
      const double k = groups[d];
      s[d] = m * (k - 1);
      m *= k;
    }
    return s;
  }
  for (size_t d = 0; d < dims; ++d) {
    const double k = groups[d];
    switch (kind) {
      case CollectiveKind::AllReduce:
        s[d] = 2 * m * (k - 1) / k;
        m /= k;
        break;
      case CollectiveKind::ReduceScatter:
        s[d] = m * (k - 1) / k;
        m /= k;
        break;
      case CollectiveKind::AllToAll:
        s[d] = m * (k - 1) / k;
        break;
      default:
        CHORUS_ASSERT(false, "no LIBRA decomposition for {}", to_string(kind));
    }
  }
  return s;
}

namespace {

struct BlockBehaviour {
  double factor = 1;  // simulated bandwidth time / (s_d / B_d)
  double steps = 0;   // sequential messages
  double hops = 1;
};

// What chorus's simulation does on one building block (see the header): derived from the algorithm's
// message count and size and the link bandwidth LIBRA's cost model gives each link.
BlockBehaviour block_behaviour(BlockKind block, CollectiveKind kind, double k, double n) {
  const bool all_reduce = kind == CollectiveKind::AllReduce;
  const bool all_to_all = kind == CollectiveKind::AllToAll;
  BlockBehaviour b;
  if (block == BlockKind::FullyConnected) {
    b.factor = (n - 1) / (k - 1);  // links of B/(n-1), of which a group of k uses k-1
    b.steps = all_reduce ? 2 : 1;
    return b;
  }
  // Ring and Switch run the ring algorithm: 2(k-1) or (k-1) messages, All-to-All relayed k(k-1)/2.
  b.steps = all_reduce ? 2 * (k - 1) : all_to_all ? k * (k - 1) / 2 : k - 1;
  const double relay = all_to_all ? k : 1;  // ring All-to-All moves m(k-1) instead of m(k-1)/k
  if (block == BlockKind::Ring) {
    b.factor = 2 * relay;  // one of the two B/2 links is used
  } else {
    b.factor = relay / (all_to_all ? 2 : 1);  // All-to-All: k(k-1)/2 messages of m/k over B
    b.hops = 2;
  }
  return b;
}

}  // namespace

double CollectiveTerms::time_ms(const std::vector<double>& bandwidth_gbps) const {
  double t = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].coefficient == 0 && dims[d].latency_ms == 0)
      continue;
    t = std::max(t, dims[d].latency_ms + dims[d].coefficient / bandwidth_gbps[d]);
  }
  return t;
}

CollectiveTerms collective_terms(CollectiveKind kind, double bytes, const std::vector<uint32_t>& groups,
                                 const NetworkShape& network, const ModelOptions& options) {
  CollectiveTerms terms{kind, bytes, groups, {}};
  const std::vector<double> s = dimension_bytes(kind, bytes, groups);
  for (size_t d = 0; d < s.size(); ++d) {
    DimensionTerm term;
    term.coefficient = s[d] / 1e6;  // bytes / (GB/s) = ns; / 1e6 = ms
    if (groups[d] > 1) {
      BlockBehaviour b;
      if (options.block_factors)
        b = block_behaviour(network.blocks[d], kind, groups[d], network.sizes[d]);
      term.coefficient *= b.factor;
      const double latency = options.latency_ns.empty() ? 0.0 : options.latency_ns[d];
      term.latency_ms = b.steps * b.hops * latency / 1e6;
    }
    terms.dims.push_back(term);
  }
  return terms;
}

double TrainingStep::compute_ms() const {
  double c = 0;
  for (const LoopItem& item : items)
    c += item.compute_ms;
  return c;
}

double TrainingStep::time_ms(const std::vector<double>& bandwidth_gbps) const {
  std::vector<double> t(collectives.size());
  for (size_t k = 0; k < collectives.size(); ++k)
    t[k] = collectives[k].time_ms(bandwidth_gbps);
  return time_with(t);
}

double TrainingStep::time_with(const std::vector<double>& t) const {
  double compute_stream = 0, comm_stream = 0;
  for (const LoopItem& item : items) {
    switch (item.kind) {
      case LoopItem::Kind::Compute:
        compute_stream += item.compute_ms;
        break;
      case LoopItem::Kind::Blocking:
        compute_stream += t[item.collective];
        break;
      case LoopItem::Kind::Stream:
        if (loop == TrainingLoop::Overlap) {
          comm_stream = std::max(comm_stream, compute_stream) + t[item.collective];
        } else {
          compute_stream += t[item.collective];
        }
        break;
    }
  }
  return std::max(compute_stream, comm_stream);
}

double TrainingStep::communication_ms(const std::vector<double>& bandwidth_gbps) const {
  return time_ms(bandwidth_gbps) - compute_ms();
}

namespace {

class StepBuilder {
 public:
  StepBuilder(const NetworkShape& network, const ModelOptions& options, TrainingStep& step)
      : network_(network), options_(options), step_(step) {}

  void compute(double ns) {
    if (ns > 0)
      step_.items.push_back({LoopItem::Kind::Compute, ns / 1e6, 0});
  }

  void collective(const LayerCollective& c, const std::vector<uint32_t>& groups, LoopItem::Kind kind) {
    // A collective within groups of one NPU moves nothing; giving it a zero-time variable would only make
    // the optimizer's Newton systems badly scaled.
    const bool moves = std::any_of(groups.begin(), groups.end(), [](uint32_t k) { return k > 1; });
    if (!c.kind || c.bytes == 0 || !moves)
      return;
    const auto key = std::make_tuple(*c.kind, c.bytes, groups);
    auto [it, inserted] = index_.try_emplace(key, step_.collectives.size());
    if (inserted)
      step_.collectives.push_back(collective_terms(*c.kind, c.bytes, groups, network_, options_));
    step_.items.push_back({kind, 0, it->second});
  }

 private:
  const NetworkShape& network_;
  const ModelOptions& options_;
  TrainingStep& step_;
  std::map<std::tuple<CollectiveKind, double, std::vector<uint32_t>>, size_t> index_;
};

}  // namespace

TrainingStep build_training_step(const NetworkShape& network, const Workload& workload, const Communicator& comm,
                                 const ModelOptions& options) {
  CHORUS_ASSERT(options.latency_ns.empty() || options.latency_ns.size() == network.dimension_count(),
                "{} latencies for {} dimensions", options.latency_ns.size(), network.dimension_count());
  TrainingStep step;
  step.loop = options.loop;
  StepBuilder b(network, options, step);
  using Kind = LoopItem::Kind;
  for (const Layer& layer : workload.layers) {
    b.compute(layer.forward_ns);
    b.collective(layer.forward, comm.of(Phase::Forward), Kind::Blocking);
  }
  // LIBRA's loop walks the layers backwards: input gradient, then weight gradient, of each layer.
  for (auto it = workload.layers.rbegin(); it != workload.layers.rend(); ++it) {
    b.compute(it->input_grad_ns);
    b.collective(it->input_grad, comm.of(Phase::InputGrad), Kind::Blocking);
    b.compute(it->weight_grad_ns);
    b.collective(it->weight_grad, comm.of(Phase::WeightGrad), Kind::Stream);
  }
  return step;
}

}  // namespace chorus::netopt
