// `chorus fused`: one fused computation-collective operator against compute-then-collective, analytically
// (src/chorus/overlap/fused_model.hpp).
//
//   chorus fused --op gemv-all-reduce --m 8192 --k 8192 --npus 8 --system h100-80gb --topology switch:8
//                --bandwidth 450GB/s --latency 1us [--tiles 4] [--json]
#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "chorus/astra/system_config.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/overlap/fused_model.hpp"
#include "commands.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

struct FusedOptions {
  TopologyOptions topology;
  std::string op;
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
  int64_t pooling = 1;
  std::string dtype = "bf16";
  uint32_t npus = 0;
  std::string system;
  std::optional<uint32_t> tiles;
  std::string scale = "up";
  std::optional<uint32_t> comm_workgroups;
  std::string model = "unaware";
  std::string tile_overhead;
  std::string collective_system;
  bool json = false;
};

// Scale-up: the compute workgroups store each tile straight into the peers' buffers (zero-copy), none reserved.
// Scale-out: GPU-initiated puts through the NIC, driven by reserved workgroups; 4 is chorus's assumption (one per
// NIC queue of a 4-NIC node), not a measured value: pass --comm-workgroups to change it.
uint32_t comm_workgroups(const FusedOptions& o) {
  if (o.scale != "up" && o.scale != "out")
    throw Error("", "--scale", fmt::format("unknown scale '{}'; expected up or out", o.scale));
  if (o.comm_workgroups)
    return *o.comm_workgroups;
  return o.scale == "up" ? 0 : 4;
}

double ns(Time t) {
  return t.nanoseconds();
}

void print_json(const fused::FusedRequest& q, const fused::FusedResult& r, double wall_s) {
  nlohmann::json j;
  j["op"] = fused::to_string(q.op);
  j["gpu"] = q.gpu.name;
  j["npus"] = q.npus;
  j["collective"] = chakra::to_string(r.collective);
  j["comm_size"] = r.work.comm_size.count();
  j["compute_ns"] = ns(r.compute);
  j["fused_compute_ns"] = ns(r.fused_compute);
  j["memory_bound"] = r.memory_bound;
  j["collective_ns"] = ns(r.collective_time);
  j["collective_bound_ns"] = ns(r.collective_bound);
  j["waves"] = r.waves;
  j["tiles"] = r.tiles;
  j["tile_compute_ns"] = ns(r.tile_compute);
  j["tile_transfer_ns"] = ns(r.tile_transfer);
  j["tile_occupancy_ns"] = ns(r.tile_occupancy);
  j["unfused_ns"] = ns(r.unfused);
  j["fused_ns"] = ns(r.fused);
  j["bound_ns"] = ns(r.bound);
  j["reduction"] = 1.0 - r.fused.seconds() / r.unfused.seconds();
  j["fusion_pays"] = r.fused < r.unfused;
  j["wall_s"] = wall_s;
  std::cout << j.dump() << "\n";
}

void print_text(const fused::FusedRequest& q, const fused::FusedResult& r) {
  fmt::print("operator     {} on {} x {} ({}): per GPU {:.3g} GFLOP, {:.3g} MB of HBM traffic\n",
             fused::to_string(q.op), q.npus, q.gpu.name, q.shape.dtype, r.work.flops / 1e9, r.work.memory_bytes / 1e6);
  fmt::print("compute      {} alone ({}-bound); {} with {} of {} workgroups communicating\n", to_string(r.compute),
             r.memory_bound ? "memory" : "compute", to_string(r.fused_compute), q.comm_workgroups, q.gpu.compute_units);
  fmt::print("collective   {} of {}: {} (lower bound {})\n", chakra::to_string(r.collective),
             to_string(r.work.comm_size), to_string(r.collective_time), to_string(r.collective_bound));
  fmt::print(
      "tiles        {} ({} workgroup waves): {} compute, {} transfer ({} of it occupying the network) per "
      "tile\n",
      r.tiles, r.waves, to_string(r.tile_compute), to_string(r.tile_transfer), to_string(r.tile_occupancy));
  fmt::print("unfused      {} (compute, then the collective)\n", to_string(r.unfused));
  const double reduction = 100.0 * (1.0 - r.fused.seconds() / r.unfused.seconds());
  fmt::print("fused        {} ({:+.1f}% vs unfused)\n", to_string(r.fused), -reduction);
  fmt::print("bound        {} (the larger of compute alone and the collective's lower bound)\n", to_string(r.bound));
  if (r.fused >= r.unfused) {
    fmt::print(
        "note         fusion does not pay here: {} tile(s) of {} compute hide none of the collective (each tile's "
        "transfer occupies the network {})\n",
        r.tiles, to_string(r.tile_compute), to_string(r.tile_occupancy));
  }
}

void run(const FusedOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  const auto op = fused::parse_fused_op(o.op);
  if (!op)
    throw Error("", "--op",
                fmt::format("unknown fused operator '{}'; expected one of {}", o.op, fused::fused_op_names()));
  const std::optional<NetworkModelKind> model = network_model_argument(o.model);
  fused::FusedRequest q;
  q.op = *op;
  q.shape = fused::OperatorShape{o.m, o.k, o.n, o.pooling, o.dtype};
  q.npus = o.npus;
  fused::dtype_bytes(o.dtype, Argument{"dtype"});
  q.gpu = fused::load_gpu(o.system);
  q.gpu.peak(o.dtype, "");  // a datatype the GPU has no peak for fails here, before the network is built
  q.tiles = o.tiles;
  q.comm_workgroups = comm_workgroups(o);
  if (!o.tile_overhead.empty())
    q.tile_overhead = parse_time(o.tile_overhead, "--tile-overhead");
  const Topology topology = make_topology(o.topology);
  if (topology.npu_count() != o.npus) {
    throw Error("", "--npus",
                fmt::format("is {}, but the network has {} NPUs (every GPU of the network takes part)", o.npus,
                            topology.npu_count()));
  }
  std::optional<AstraSystemConfig> system;
  if (!o.collective_system.empty())
    system = load_astra_system(o.collective_system);
  CollectiveTimer timer(topology, CollectiveTimerOptions{*model, system ? &*system : nullptr, false, {}, {}});
  GroupBounds bounds(topology);
  const fused::FusedResult r = fused::evaluate_fused(q, timer, bounds);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (o.json) {
    print_json(q, r, wall_s);
  } else {
    print_text(q, r);
  }
}

}  // namespace

void register_fused_command(CLI::App& app) {
  auto o = std::make_shared<FusedOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fused", "model a fused computation-collective operator (tile pipeline) against compute-then-collective");
  cmd->add_option("--op", o->op,
                  "gemv-all-reduce | embedding-all-to-all | gemm-all-to-all | gemm-reduce-scatter | all-gather-gemm")
      ->required();
  cmd->add_option("--m", o->m, "M: output rows (embedding: the global batch)")->required();
  cmd->add_option("--k", o->k, "K: the reduction dimension (embedding: the vector dimension)")->required();
  cmd->add_option("--n", o->n, "N: output columns (embedding: tables per GPU; none for gemv-all-reduce)");
  cmd->add_option("--pooling", o->pooling, "embedding: rows pooled per sample and table (default 1)");
  cmd->add_option("--dtype", o->dtype, "bf16 | fp16 | fp32 | fp8 (default bf16)");
  cmd->add_option("--npus", o->npus, "GPUs taking part (must be the network's NPU count)")->required();
  cmd->add_option("--system", o->system, "GPU: a100-40gb | a100-80gb | h100-80gb | h200 | mi300x | a JSON file")
      ->required();
  cmd->add_option("--tiles", o->tiles, "tiles of the pipeline (default: the best power-of-two group of waves)");
  cmd->add_option("--scale", o->scale, "up: zero-copy stores (default) | out: GPU-initiated puts");
  cmd->add_option("--comm-workgroups", o->comm_workgroups,
                  "workgroups reserved for communication (default 0 scale-up, 4 scale-out)");
  cmd->add_option("--tile-overhead", o->tile_overhead,
                  "cost of issuing one tile's stores or puts, serialized per tile, e.g. 1us (default 0)");
  cmd->add_option("--collective-system", o->collective_system,
                  "ASTRA-sim system JSON for the collectives' algorithms and chunking (default: chorus's ring)");
  cmd->add_option("--model", o->model, network_models().help());
  add_topology_options(*cmd, o->topology);
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { run(*o); });
}

}  // namespace chorus::cli
