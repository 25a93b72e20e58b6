// NCCL's and synthesized collective costs per network dimension (see dimension_tables.hpp).
#include "chorus/codesign/dimension_tables.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/nccl/cost_model.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus::codesign {
namespace {

using llm::Collective;

// The collectives a table holds: its index in CollectiveTable::curves and the kind NCCL and the synthesizer know.
struct Tabled {
  size_t index;
  CollectiveKind kind;
};
constexpr std::array<Tabled, 4> kTabled = {
    {{static_cast<size_t>(Collective::kReduceScatter), CollectiveKind::ReduceScatter},
     {static_cast<size_t>(Collective::kAllGather), CollectiveKind::AllGather},
     {static_cast<size_t>(Collective::kAllReduce), CollectiveKind::AllReduce},
     {llm::CollectiveTable::kAllToAll, CollectiveKind::AllToAll}}};

// NCCL's buffer sizes: 1 KiB to 64 GiB, a point per doubling.
constexpr int kNcclMinLog2 = 10, kNcclMaxLog2 = 36;
// Synthesis: bytes / bandwidth from 0.1 us to 0.1 s, a point per decade, at a reference bandwidth of 1e12 B/s (whole
// bytes down to 100 KB, so chunk rounding does not break the rescaling).
constexpr double kSynthReferenceBps = 1e12;
constexpr std::array<double, 7> kSynthSeconds = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1};

std::string field_of(size_t dim) {
  return fmt::format("dimensions[{}].algorithms", dim);
}

// The group sizes the planner can place on a domain of `size`: the divisors of the job's GPUs from 2 to size.
std::vector<int64_t> group_sizes(int64_t gpus, int64_t size) {
  std::vector<int64_t> out;
  for (int64_t n = 2; n <= std::min(gpus, size); ++n) {
    if (gpus % n == 0)
      out.push_back(n);
  }
  return out;
}

const llm::NetworkTier& machine_tier(const llm::System& machine, size_t dim) {
  return dim == 0 ? machine.networks.front() : machine.networks.back();
}

// The machine NCCL's model sees for dimension `dim` at `gbps` per GPU, and the scales that make its bandwidth exact.
struct NcclDimension {
  machine::Machine m;
  nccl::Scales scales;
  uint32_t nodes_per_group = 0;  // 0: the group is one node (first dimension); else one node per GPU
};

NcclDimension nccl_dimension(const machine::Machine& base, size_t dim, double gbps, int64_t size,
                             const std::string& file) {
  NcclDimension out{base, {}, 0};
  machine::Machine& m = out.m;
  if (dim == 0) {
    if (base.scale_up == machine::ScaleUp::kTorus)
      throw Error(file, field_of(dim), fmt::format("nccl: {} is a TPU pod; NCCL does not run on it", base.name));
    if (base.scale_up == machine::ScaleUp::kFullMesh && size > base.gpus_per_node) {
      throw Error(file, field_of(dim),
                  fmt::format("nccl: a domain of {} GPUs; {}'s full mesh joins at most {} (one link per pair)", size,
                              base.name, base.gpus_per_node));
    }
    m.gpus_per_node = static_cast<uint32_t>(size);
    m.max_nodes = 1;
    if (base.scale_up == machine::ScaleUp::kSwitch) {
      // As many links as the bandwidth needs at the preset's link rate; the scale makes up a fraction of a link.
      const double per_link = base.scale_up_bandwidth / base.scale_up_links;
      m.scale_up_links = static_cast<uint32_t>(std::max(1.0, std::round(gbps * 1e9 / per_link)));
      m.scale_up_bandwidth = m.scale_up_links * per_link;
      out.scales.intra_bandwidth = gbps * 1e9 / m.scale_up_bandwidth;
    } else {
      m.scale_up_bandwidth = gbps * 1e9;  // a full mesh: each link's share scales with it
    }
    return out;
  }
  m.gpus_per_node = 1;
  m.nics_per_node = 1;
  m.nic_bandwidth = gbps * 1e9;
  m.in_network_reduction = false;  // NVLS across nodes needs CollNet, which NCCL's model here does not offer
  m.max_nodes = static_cast<uint32_t>(size);
  out.nodes_per_group = 1;
  return out;
}

// NCCL's communicator of n GPUs of the dimension.
nccl::CommSystem nccl_comm(const NcclDimension& nd, int64_t n, size_t dim, const std::string& file) {
  try {
    return nd.nodes_per_group == 0 ? nccl::comm_system(nd.m, 1, nd.scales, static_cast<uint32_t>(n))
                                   : nccl::comm_system(nd.m, static_cast<uint32_t>(n), nd.scales, 1);
  } catch (const Error& e) {
    throw Error(file, field_of(dim), fmt::format("nccl on {} GPUs: {}", n, e.what()));
  }
}

// NCCL's time for `kind` over its buffer sizes; the curve's bytes are NCCL's divided by `per_byte` (point-to-point:
// 2, the pair's All-to-All buffer over what one GPU sends).
llm::CollectiveCurve nccl_curve(const nccl::CommSystem& s, CollectiveKind kind, int64_t per_byte) {
  llm::CollectiveCurve curve;
  for (int k = kNcclMinLog2; k <= kNcclMaxLog2; ++k) {
    const int64_t bytes = int64_t{1} << k;
    curve.bytes.push_back(static_cast<double>(bytes / per_byte));
    curve.seconds.push_back(nccl::choose(s, kind, bytes).time_us * 1e-6);
  }
  return curve;
}

std::shared_ptr<const llm::CollectiveTable> nccl_table(const machine::Machine& base, size_t dim,
                                                       const DimensionSetting& d, int64_t gpus,
                                                       const std::string& file) {
  const NcclDimension nd = nccl_dimension(base, dim, d.bandwidth_gbps / d.oversubscription, d.size, file);
  auto table = std::make_shared<llm::CollectiveTable>();
  table->label = "nccl";
  table->group_sizes = group_sizes(gpus, d.size);
  const nccl::CommSystem pair = nccl_comm(nd, 2, dim, file);
  for (const int64_t n : table->group_sizes) {
    const nccl::CommSystem s = nccl_comm(nd, n, dim, file);

    for (const Tabled c : kTabled)
      table->curves[c.index].push_back(nccl_curve(s, c.kind, 1));
    // Point-to-point: NCCL's send/receive between two GPUs, priced as its All-to-All of two whose send buffer holds
    // twice the bytes (half of it for the peer).
    table->curves[static_cast<size_t>(Collective::kP2p)].push_back(nccl_curve(pair, CollectiveKind::AllToAll, 2));
  }
  return table;
}

using SynthJob = DimensionTables::SynthJob;

double synthesize_job(const SynthJob& job) {
  const Topology topology =
      switch_star(static_cast<uint32_t>(job.n), {Bandwidth::bytes_per_s(kSynthReferenceBps), Time::ps(job.latency_ps)});
  SynthOptions o;
  o.kind = job.kind;
  o.size = Bytes(static_cast<int64_t>(std::llround(kSynthSeconds[job.x] * kSynthReferenceBps)));
  return synthesize(topology, o).time.seconds();
}

// Runs every job over `threads` threads; the first error is rethrown.
std::map<SynthJob, double> run_synth_jobs(const std::set<SynthJob>& jobs, int threads) {
  const std::vector<SynthJob> list(jobs.begin(), jobs.end());
  std::vector<double> seconds(list.size(), 0);
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(static_cast<size_t>(std::max(1, threads)));
  auto work = [&](size_t worker) {
    try {
      for (size_t i = next++; i < list.size(); i = next++)
        seconds[i] = synthesize_job(list[i]);
    } catch (...) {
      errors[worker] = std::current_exception();
      next = list.size();
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < errors.size(); ++w)
    pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool)
    t.join();
  for (const std::exception_ptr& e : errors) {
    if (e)
      std::rethrow_exception(e);
  }
  std::map<SynthJob, double> out;
  for (size_t i = 0; i < list.size(); ++i)
    out[list[i]] = seconds[i];
  return out;
}

struct SynthLink {
  double bytes_per_second = 0;
  int64_t latency_ps = 0;
};

SynthLink synth_link(double efficiency, double latency_s, const DimensionSetting& d) {
  return {d.bandwidth_gbps * 1e9 / d.oversubscription * efficiency, std::llround(latency_s / 2 * 1e12)};
}

std::shared_ptr<const llm::CollectiveTable> synth_table(const SynthLink& link, const DimensionSetting& d, int64_t gpus,
                                                        const std::map<SynthJob, double>& timed) {
  auto table = std::make_shared<llm::CollectiveTable>();
  table->label = "synth";
  table->group_sizes = group_sizes(gpus, d.size);
  for (const int64_t n : table->group_sizes) {
    for (const Tabled c : kTabled) {
      llm::CollectiveCurve curve;
      for (size_t x = 0; x < kSynthSeconds.size(); ++x) {
        const auto it = timed.find({c.kind, n, link.latency_ps, x});
        if (it == timed.end())
          throw Error("", Argument{"network"}, fmt::format("synth: no schedule synthesized for {} GPUs", n));
        curve.bytes.push_back(kSynthSeconds[x] * link.bytes_per_second);
        curve.seconds.push_back(it->second);
      }
      table->curves[c.index].push_back(std::move(curve));
    }
  }
  return table;
}

}  // namespace

DimensionTables::DimensionTables(const llm::System& machine, const machine::Machine* nccl_machine,
                                 const NetworkTemplate& t, const std::vector<NetworkPoint>& networks, int threads)
    : nccl_machine_(nccl_machine), file_(t.file) {
  const auto started = std::chrono::steady_clock::now();
  if (machine.networks.empty())
    throw Error("", Argument{"machine"}, "has no network tiers");
  for (size_t i = 0; i < t.dimensions.size(); ++i) {
    const llm::NetworkTier& tier = machine_tier(machine, i);
    efficiency_.push_back(t.dimensions[i].efficiency.value_or(tier.efficiency));
    latency_s_.push_back(t.dimensions[i].latency_s.value_or(tier.latency_s));
  }
  std::set<SynthJob> jobs;
  for (const NetworkPoint& p : networks) {
    gpus_ = p.dims.back().size;
    for (size_t i = 0; i < p.dims.size(); ++i) {
      const DimensionSetting& d = p.dims[i];
      if (d.algorithm != Algorithm::kSynth)
        continue;
      const SynthLink link = synth_link(efficiency_[i], latency_s_[i], d);
      for (const int64_t n : group_sizes(gpus_, d.size)) {
        for (const Tabled c : kTabled) {
          for (size_t x = 0; x < kSynthSeconds.size(); ++x)
            jobs.insert({c.kind, n, link.latency_ps, x});
        }
      }
    }
  }
  synthesized_ = run_synth_jobs(jobs, threads);
  for (const NetworkPoint& p : networks) {
    for (size_t i = 0; i < p.dims.size(); ++i) {
      const DimensionSetting& d = p.dims[i];
      const Key key{i, d.bandwidth_gbps, d.size, d.oversubscription, static_cast<int>(d.algorithm)};
      if ((d.algorithm == Algorithm::kNccl || d.algorithm == Algorithm::kSynth) && !tables_.contains(key))
        tables_[key] = build(i, d);
    }
  }
  seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

std::shared_ptr<const llm::CollectiveTable> DimensionTables::build(size_t dim, const DimensionSetting& d) const {
  if (d.algorithm == Algorithm::kNccl) {
    if (nccl_machine_ == nullptr) {
      throw Error(file_, field_of(dim),
                  "nccl needs --machine to name a machine preset of `chorus machines` (dgx-h100, ...), not a system "
                  "file");
    }
    return nccl_table(*nccl_machine_, dim, d, gpus_, file_);
  }
  return synth_table(synth_link(efficiency_[dim], latency_s_[dim], d), d, gpus_, synthesized_);
}

std::shared_ptr<const llm::CollectiveTable> DimensionTables::find(size_t dim, const DimensionSetting& d) const {
  if (d.algorithm != Algorithm::kNccl && d.algorithm != Algorithm::kSynth)
    return nullptr;
  const auto it = tables_.find(Key{dim, d.bandwidth_gbps, d.size, d.oversubscription, static_cast<int>(d.algorithm)});
  if (it != tables_.end())
    return it->second;
  if (dim >= efficiency_.size() || gpus_ == 0 || (d.algorithm == Algorithm::kSynth && synthesized_.empty())) {
    throw Error(
        "", Argument{"network"},
        fmt::format("dimension {} ({} at {} GB/s x{}) has no cost table; build DimensionTables for this network", dim,
                    to_string(d.algorithm), d.bandwidth_gbps, d.size));
  }
  return build(dim, d);
}

std::optional<NcclNetwork> nccl_network(const machine::Machine* base, const NetworkPoint& point) {
  if (base == nullptr || point.dims.size() != 2 || point.dims[0].algorithm != Algorithm::kNccl ||
      point.dims[1].algorithm != Algorithm::kNccl)
    return std::nullopt;
  const DimensionSetting& node = point.dims[0];
  const DimensionSetting& out = point.dims[1];
  NcclDimension nd = nccl_dimension(*base, 0, node.bandwidth_gbps / node.oversubscription, node.size, "");
  nd.m.nics_per_node = static_cast<uint32_t>(node.size);
  nd.m.nic_bandwidth = out.bandwidth_gbps / out.oversubscription * 1e9;
  nd.m.max_nodes = static_cast<uint32_t>(std::max<int64_t>(1, out.size / node.size));
  return NcclNetwork{nd.m, nd.scales};
}

const machine::Machine* nccl_machine_for(const std::string& machine_option) {
  if (const machine::Machine* m = machine::find_machine(machine_option))
    return m;
  return machine::home_machine(machine_option);
}

}  // namespace chorus::codesign
