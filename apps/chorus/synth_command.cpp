// `chorus synth`: synthesize a topology-aware collective algorithm (docs/synthesis.md).
//
//   chorus synth --topology mesh2d:32x32 --bandwidth 50GiB/s --latency 0.5us --collective all_reduce --size 1GiB
//                --chunks 4 --seed 1 --out ar.msccl.xml [--json]
//   chorus synth --topology file.txt --fail-links 3-4,17-18 --npus 0-63 --collective all_gather --size 1GiB
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/io/output_file.hpp"
#include "chorus/io/text_file.hpp"
#include "chorus/report/synth_report.hpp"
#include "chorus/sim/synth_msccl.hpp"
#include "chorus/synth/chakra_export.hpp"
#include "chorus/synth/demand.hpp"
#include "chorus/synth/dimensional.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/verify.hpp"
#include "commands.hpp"
#include "feasibility.hpp"
#include "synth_options.hpp"
#include "terminal_progress.hpp"
#include "topology_options.hpp"

namespace chorus::cli {

namespace {

// --out --verify reads the written XML back up to this size.
constexpr uint64_t kMscclReadBackBytes = uint64_t{256} << 20;

struct SynthCommandOptions {
  TopologyOptions topology;
  SynthFlags synth;
  std::string collective;
  std::string size;
  std::string out;
  std::string schedule_json;
  std::string chakra;
  std::string demand;
  bool verify = false;
  bool json = false;
  std::string report;  // HTML (report/synth_report.hpp)
  bool dimensional = false;
};

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

// Streamed op by op: a materialized dimension-wise schedule has up to 2^22 transfers, and the whole document as one
// JSON value took 12.4 GB for mesh2d:32x32 at 16 chunks per NPU.
void write_schedule_json(const std::string& path, const SynthResult& r) {
  std::ofstream out(path);
  if (!out)
    throw Error(path, "--schedule", "cannot open for writing");
  nlohmann::json j;
  j["collective"] = to_string(r.kind);
  j["size_bytes"] = r.size.count();
  j["members"] = r.members;
  j["chunks_per_npu"] = r.chunks_per_npu;
  j["chunk_bytes"] = r.chunk_bytes.count();
  j["time_ns"] = ns(r.time);
  std::string head = j.dump();
  head.pop_back();  // the closing brace: "ops" follows
  out << head << ",\"ops\":[";
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const OpId op{i};
    nlohmann::json o;
    o["src"] = r.schedule.src(op).value;
    o["dst"] = r.schedule.dst(op).value;
    o["chunk"] = r.schedule.chunk(op);
    if (r.schedule.is_transfer(op))
      o["bytes"] = r.schedule.bytes(op).count();
    o["start_ns"] = ns(r.ops[i].start);
    o["end_ns"] = ns(r.ops[i].finish);
    if (r.schedule.is_transfer(op))
      o["reduce"] = r.ops[i].reduce;
    nlohmann::json deps = nlohmann::json::array();
    for (OpId d : r.schedule.deps(op))
      deps.push_back(d.value);
    o["deps"] = deps;
    if (!r.bundle_start.empty()) {  // dimension-wise: the unit chunks the op carries (chunk: the first of them)
      const std::span<const uint32_t> units = op_units(r, i);
      o["units"] = std::vector<uint32_t>(units.begin(), units.end());
    }
    out << (i == 0 ? "" : ",") << o.dump();
  }
  out << "]}\n";
  out.close();  // the buffered tail is written here: checked after it
  if (!out)
    throw Error(path, "--schedule", "cannot write the file (disk full or not writable?)");
}

// --out: the MSCCL XML as written (through switches, the faster of its two layouts) and, with --verify, the file
// read back and run.
struct MscclWritten {
  SynthMscclLayout layout;
  std::optional<SynthMscclRun> program;
};

MscclWritten write_msccl(const SynthCommandOptions& o, const Topology& topology, const SynthResult& r) {
  MscclWritten w;
  w.layout = choose_synth_msccl_layout(topology, r);
  const MscclXml xml(r, "chorus-synth", w.layout.options);
  if (const auto warning = msccl_size_warning(xml.shape(), kMscclLargeXmlBytes))
    std::cerr << "warning: " << *warning << "\n";
  xml.write(o.out);
  if (o.verify && synth_msccl_runnable(topology, r) && xml.shape().bytes <= kMscclReadBackBytes)
    w.program = run_synth_msccl(topology, r, read_text_file(o.out), o.out);
  return w;
}

// --verify (the certificates' verdict, the aware model's time) and --out (the XML's layout and read-back), in JSON.
void add_checks_json(const std::optional<SynthCheck>& check, const std::optional<MscclWritten>& xml,
                     nlohmann::json& j) {
  if (check) {
    j["verified"] = check->ok;
    j["aware_ns"] = ns(check->aware_time);
    if (!check->ok)
      j["verify_error"] = check->problem;
  }
  if (!xml)
    return;
  const MscclWritten& w = *xml;
  if (w.program) {
    j["msccl_checked"] = w.program->checked;
    j["msccl_aware_ns"] = ns(w.program->aware);
    j["msccl_flow_ns"] = ns(w.program->flow);
  }
  if (w.layout.unordered) {
    j["msccl_switch_sends"] = w.layout.options.order_switch_sends ? "ordered" : "runtime";
    j["msccl_flow_runtime_ns"] = ns(w.layout.unordered->flow);
    j["msccl_flow_ordered_ns"] = ns(w.layout.ordered->flow);
  }
}

// The same as text.
void print_checks(const std::optional<SynthCheck>& check, const std::optional<MscclWritten>& xml, CollectiveKind kind,
                  const std::string& path) {
  if (check) {
    fmt::print("verified     {} (aware model {})\n", check->ok ? "yes" : "NO: " + check->problem,
               to_string(check->aware_time));
  }
  if (!xml)
    return;
  const MscclWritten& w = *xml;
  fmt::print("msccl xml    {}\n", path);
  if (w.layout.unordered) {
    fmt::print(
        "  switches   a GPU's sends into the fabric {} (flow model: {} ordered as synthesized, {} left to the "
        "runtime)\n",
        w.layout.options.order_switch_sends ? "wait for one another" : "are left to the runtime",
        to_string(w.layout.ordered->flow), to_string(w.layout.unordered->flow));
  }
  if (w.program) {
    fmt::print("  read back  computes {}; {} under the aware model, {} under the flow model\n", to_string(kind),
               to_string(w.program->aware), to_string(w.program->flow));
  }
}

// A synthesized time below its lower bound is a defect of the synthesizer or of the bound: said on stderr (JSON on
// stdout stays one object), never hidden.
void warn_below_bound(Time time, Time bound) {
  if (!physically_feasible(time, bound)) {
    std::cerr << fmt::format(
        "warning: synthesized time {} is below the lower bound {}: a defect of chorus's synthesizer or bound, please "
        "report it\n",
        to_string(time), to_string(bound));
  }
}

// The dimension-wise result as text: stages, time, bound.
void print_dimensional(const DimensionalSynthResult& r, const Topology& topology, Time bound, double ratio) {
  fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(r.kind), to_string(r.size), topology.name(), r.npus);
  fmt::print("synthesized  dimension-wise: {} stages, {} line syntheses, {} transfers\n", r.stage_times.size(),
             r.line_syntheses, r.transfers);
  for (const DimensionalPhase& p : r.phases) {
    fmt::print("  stage {} part {}: {} of {} on {} lines of dimension {} ({} NPUs), {} chunks per NPU, {}\n", p.stage,
               p.part, to_string(p.kind), to_string(p.size), p.lines, p.dimension, p.line_npus, p.chunks_per_npu,
               to_string(p.time));
  }
  fmt::print("time         {} ({} ns)\n", to_string(r.time), ns(r.time));
  fmt::print("lower bound  {} ({} ns, single-NPU cuts)\n", to_string(bound), ns(bound));
  fmt::print("time/bound   {:.4f}\n", ratio);
  fmt::print("synthesis    {:.3f} s\n", r.synthesis_s);
}

// Dimension-wise synthesis (dimensional.hpp): per-line schedules composed in stages; transfers are counted, and
// materialized (up to 2^22 transfers, stages pipelined by data-level dependencies, transfers carrying bundles of
// unit chunks) for --out, --schedule, --chakra, --report and --verify.
void run_dimensional(const SynthCommandOptions& o, const Topology& topology, const SynthOptions& options) {
  const DimensionalSynthResult r = synthesize_dimensional(topology, options);
  std::optional<SynthResult> m;
  std::optional<SynthCheck> check;
  std::optional<MscclWritten> xml;
  double materialize_s = 0;
  const auto bound_started = std::chrono::steady_clock::now();
  const Time bound = dimensional_lower_bound(topology, r.kind, r.size);
  const double bound_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - bound_started).count();
  if (!o.out.empty() || o.verify || !o.schedule_json.empty() || !o.chakra.empty() || !o.report.empty()) {
    const auto started = std::chrono::steady_clock::now();
    m = materialize_dimensional(topology, r);
    materialize_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!o.out.empty())
      xml = write_msccl(o, topology, *m);
    if (!o.schedule_json.empty())
      write_schedule_json(o.schedule_json, *m);
    if (!o.chakra.empty())
      write_chakra_schedule((std::filesystem::path(o.chakra) / to_string(m->kind)).string(), *m, topology);
    if (!o.report.empty())
      write_output_file(o.report, "--report", synth_report_html(*m, topology, bound));
    if (o.verify)
      check = check_synthesis(topology, *m);
  }
  const double ratio =
      bound > Time::zero() ? static_cast<double>(r.time.picoseconds()) / static_cast<double>(bound.picoseconds()) : 0;
  const Time fastest = m ? std::min(r.time, m->time) : r.time;  // the pipelined schedule is never slower
  warn_below_bound(fastest, bound);
  if (o.json) {
    nlohmann::json j;
    j["collective"] = to_string(r.kind);
    j["topology"] = topology.name();
    j["npus"] = r.npus;
    j["size_bytes"] = r.size.count();
    j["method"] = "dimensional";
    j["time_ns"] = ns(r.time);
    j["bound_ns"] = ns(bound);
    j["bound_kind"] = "single-npu cuts and latency diameter";
    j["ratio"] = ratio;
    j["physically_feasible"] = physically_feasible(fastest, bound);
    j["synthesis_s"] = r.synthesis_s;
    j["bound_s"] = bound_s;
    j["transfers"] = r.transfers;
    j["chunks_per_npu"] = r.phases.empty() ? 0 : r.phases.front().chunks_per_npu;
    nlohmann::json phases = nlohmann::json::array();
    for (const DimensionalPhase& p : r.phases) {
      phases.push_back({{"stage", p.stage},
                        {"part", p.part},
                        {"dimension", p.dimension},
                        {"collective", to_string(p.kind)},
                        {"size_bytes", p.size.count()},
                        {"line_npus", p.line_npus},
                        {"lines", p.lines},
                        {"time_ns", ns(p.time)},
                        {"line_transfers", p.line_transfers},
                        {"chunks_per_npu", p.chunks_per_npu}});
    }
    j["phases"] = phases;
    if (m) {
      j["materialized_time_ns"] = ns(m->time);
      j["materialized_ratio"] =
          bound > Time::zero() ? static_cast<double>(m->time.picoseconds()) / static_cast<double>(bound.picoseconds())
                               : 0.0;
      j["units_per_npu"] = m->chunks_per_npu;
      j["unit_bytes"] = m->chunk_bytes.count();
      j["materialize_s"] = materialize_s;
    }
    add_checks_json(check, xml, j);
    std::cout << j.dump() << "\n";
  } else {
    print_dimensional(r, topology, bound, ratio);
    if (m) {
      fmt::print("materialized {} pipelined ({} ns), {} units per NPU of {}, {:.3f} s\n", to_string(m->time),
                 ns(m->time), m->chunks_per_npu, to_string(m->chunk_bytes), materialize_s);
    }
    print_checks(check, xml, r.kind, o.out);
  }
  if (check && !check->ok)
    throw Error("synth", "--verify", check->problem);
}

void run(const SynthCommandOptions& o) {
  const Topology topology = make_topology(o.topology);
  const std::optional<CollectiveKind> kind = parse_collective_kind(o.collective);
  if (!kind) {
    throw Error("", "--collective",
                fmt::format("unknown collective '{}'; expected all_gather, reduce_scatter, all_reduce, broadcast, "
                            "reduce or all_to_all",
                            o.collective));
  }
  const std::unique_ptr<Progress> progress = terminal_progress(o.json);
  if (!o.demand.empty() && *kind != CollectiveKind::AllToAll)
    throw Error("synth", "--demand", "applies to --collective all_to_all only");
  if (o.size.empty() && o.demand.empty())
    throw Error("synth", "--size", "is required (All-to-All may give --demand instead)");
  std::optional<DemandMatrix> demand;
  if (!o.demand.empty())
    demand = read_demand_csv(o.demand, topology.npu_count());
  // With a demand matrix and no --size, the size reported is the most any NPU sends.
  Bytes size = o.size.empty() ? Bytes(0) : parse_size(o.size, "--size");
  if (o.size.empty()) {
    for (uint32_t s = 0; s < demand->npus; ++s) {
      int64_t row = 0;
      for (uint32_t d = 0; d < demand->npus; ++d)
        row += demand->at(s, d);
      size = std::max(size, Bytes(row));
    }
    size = std::max(size, Bytes(1));
  }
  SynthOptions options = make_synth_options(o.synth, *kind, size);
  options.demand = std::move(demand);
  options.progress = progress.get();
  options.switches_multicast = o.out.empty();  // MSCCL has no multicast: with --out every copy is a GPU's send
  if (o.dimensional && options.demand)
    throw Error("synth", "--dimensional", "does not take --demand (dimension-wise synthesis has no All-to-All)");
  if (o.dimensional || dimensional_synthesis_needed(topology, options))
    return run_dimensional(o, topology, options);
  const SynthResult r = synthesize(topology, options);
  const SynthBound bound = synth_lower_bound(topology, options);
  std::optional<MscclWritten> xml;
  if (!o.out.empty())
    xml = write_msccl(o, topology, r);
  if (!o.schedule_json.empty())
    write_schedule_json(o.schedule_json, r);
  if (!o.report.empty())
    write_output_file(o.report, "--report", synth_report_html(r, topology, bound.bound));
  if (!o.chakra.empty())
    write_chakra_schedule((std::filesystem::path(o.chakra) / to_string(r.kind)).string(), r, topology);
  std::optional<SynthCheck> check;
  if (o.verify)
    check = check_synthesis(topology, r);
  const double ratio = bound.bound > Time::zero()
                           ? static_cast<double>(r.time.picoseconds()) / static_cast<double>(bound.bound.picoseconds())
                           : 0.0;
  warn_below_bound(r.time, bound.bound);
  if (o.json) {
    nlohmann::json j;
    j["collective"] = to_string(r.kind);
    j["topology"] = topology.name();
    j["npus"] = r.members.size();
    j["size_bytes"] = r.size.count();
    j["time_ns"] = ns(r.time);
    j["bound_ns"] = ns(bound.bound);
    j["ratio"] = ratio;
    j["physically_feasible"] = physically_feasible(r.time, bound.bound);
    j["synthesis_s"] = r.synthesis_s;
    j["bound_s"] = bound.seconds;
    j["transfers"] = r.schedule.transfer_count();
    j["chunks_per_npu"] = r.chunks_per_npu;
    j["chunk_bytes"] = r.chunk_bytes.count();
    j["priority"] = to_string(r.priority);
    j["direct"] = r.direct;
    j["rails"] = r.rails;
    j["seed"] = options.seed;
    j["events"] = r.events;
    if (!bound.kind.empty())
      j["bound_kind"] = bound.kind;
    if (const auto& a = bound.all_to_all) {
      // The concurrent-flow bracket: flow_lower_ns <= exact bound <= flow_upper_ns (a fractional routing).
      j["flow_lower_ns"] = ns(a->flow_lower);
      j["flow_upper_ns"] = ns(a->flow_upper);
      j["flow_gap"] =
          a->flow_lower > Time::zero() && a->flow_upper > Time::zero()
              ? static_cast<double>(a->flow_upper.picoseconds()) / static_cast<double>(a->flow_lower.picoseconds())
              : 0.0;
      j["flow_phases"] = a->phases;
      j["flow_exact"] = a->exact;
      j["cut_bound_ns"] = ns(a->cut);
      j["latency_bound_ns"] = ns(a->latency);
      j["max_link_load_ns"] = ns(r.max_link_load);
    }
    nlohmann::json tried = nlohmann::json::array();
    for (const SynthAttempt& a : r.attempts) {
      nlohmann::json t;
      t["chunks_per_npu"] = a.chunks_per_npu;
      t["priority"] = to_string(a.priority);
      t["direct"] = a.direct;
      t["model_bound_ns"] = ns(a.model_bound);
      t["time_ns"] = a.time == Time::max() ? nlohmann::json(nullptr) : nlohmann::json(ns(a.time));
      t["skipped"] = a.skipped;
      t["rails"] = a.rails;
      tried.push_back(t);
    }
    j["attempts"] = tried;
    add_checks_json(check, xml, j);
    std::cout << j.dump() << "\n";
  } else {
    fmt::print("collective   {} of {} on {} ({} NPUs)\n", to_string(r.kind), to_string(r.size), topology.name(),
               r.members.size());
    fmt::print("synthesized  {} chunks per NPU of {} ({}), {} transfers\n", r.chunks_per_npu, to_string(r.chunk_bytes),
               r.direct ? std::string("direct through the switch") : to_string(r.priority) + std::string(" priority"),
               r.schedule.transfer_count());
    fmt::print("time         {} ({} ns)\n", to_string(r.time), ns(r.time));
    fmt::print("lower bound  {} ({} ns{})\n", to_string(bound.bound), ns(bound.bound),
               bound.kind.empty() ? "" : ", " + bound.kind);
    if (const auto& a = bound.all_to_all) {
      if (a->exact) {
        fmt::print(
            "flow bound   {} (concurrent flow, exact: the LP's optimum, routing and dual checked); busiest "
            "link {}\n",
            to_string(a->flow_lower), to_string(r.max_link_load));
      } else {
        fmt::print("flow bound   {} <= exact <= {} (concurrent flow, {} phases); busiest link {}\n",
                   to_string(a->flow_lower), to_string(a->flow_upper), a->phases, to_string(r.max_link_load));
      }
    }
    fmt::print("time/bound   {:.4f}\n", ratio);
    fmt::print("synthesis    {:.3f} s ({} runs)\n", r.synthesis_s, r.attempts.size());
    print_checks(check, xml, r.kind, o.out);
  }
  if (check && !check->ok)
    throw Error("synth", "--verify", check->problem);
}

}  // namespace

void register_synth_command(CLI::App& app) {
  auto options = std::make_shared<SynthCommandOptions>();
  CLI::App* cmd = app.add_subcommand("synth", "synthesize a topology-aware collective algorithm for any topology");
  add_topology_options(*cmd, options->topology);
  cmd->add_option("--collective", options->collective,
                  "all_gather | reduce_scatter | all_reduce | broadcast | reduce | all_to_all")
      ->required();
  cmd->add_option("--size", options->size,
                  "buffer size, e.g. 1GiB (All-Gather: the gathered output; All-to-All: what each NPU sends); "
                  "required unless --demand is given");
  cmd->add_option("--demand", options->demand,
                  "All-to-All demand matrix: CSV of N rows of N sizes, bytes NPU row sends to NPU column "
                  "(docs/synthesis.md)");
  add_synth_flags(*cmd, options->synth);
  cmd->add_option("--out", options->out, "write the algorithm as MSCCL XML");
  cmd->add_option("--schedule", options->schedule_json, "write the schedule (every transfer, timed) as JSON");
  cmd->add_option("--chakra", options->chakra,
                  "write Chakra per-rank traces (COMM_SEND/COMM_RECV/COMP) to DIR/<collective>.<rank>.et, as "
                  "ASTRA-sim custom collectives read them");
  cmd->add_flag("--verify", options->verify,
                "check the result: every chunk delivered, no link double-booked, aware-model simulation");
  cmd->add_flag("--json", options->json, "print one JSON object");
  cmd->add_option("--report", options->report,
                  "write an HTML report: the link time chart of the schedule and its ratio to the lower bound");
  cmd->add_flag("--dimensional", options->dimensional,
                "synthesize one line per dimension and compose (automatic when the group is too large for the flat "
                "synthesizer)");
  cmd->callback([options] { run(*options); });
}

}  // namespace chorus::cli
