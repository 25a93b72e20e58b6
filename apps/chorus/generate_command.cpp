// `chorus generate`: write workload traces (one Chakra .et file per NPU).
//
//   chorus generate microbench --collective all_reduce --npus 64 --size 1MiB --out traces/ar [--gzip]
//   chorus generate llm --model gpt3-175b --dp 8 --tp 8 --pp 16 [--microbatches 16] [--sequence-parallel]
//                       [--cp 2] [--ep 8] [--fsdp zero3] --out traces/gpt3
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus/collective/collective.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/generate/llm_symmetric.hpp"
#include "chorus/generate/llm_training.hpp"
#include "chorus/generate/microbench.hpp"
#include "chorus/llm/inputs.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/presets.hpp"
#include "chorus/llm/system_presets.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/machine/device.hpp"
#include "commands.hpp"
#include "generate_recsys_moe.hpp"
#include "terminal_progress.hpp"

namespace chorus::cli {

namespace {

struct MicrobenchOptions {
  std::string collective;
  uint32_t npus = 0;
  std::string size;
  std::string out;
  bool gzip = false;
};

chakra::CommType comm_type(const std::string& text) {
  const auto kind = parse_collective_kind(text);
  if (kind) {
    switch (*kind) {
      case CollectiveKind::AllReduce:
        return chakra::CommType::AllReduce;
      case CollectiveKind::AllGather:
        return chakra::CommType::AllGather;
      case CollectiveKind::ReduceScatter:
        return chakra::CommType::ReduceScatter;
      case CollectiveKind::AllToAll:
        return chakra::CommType::AllToAll;
      default:
        break;
    }
  }
  throw Error(
      "", "--collective",
      fmt::format("unknown collective '{}'; expected all_reduce, reduce_scatter, all_gather or all_to_all", text));
}

void run_microbench(const MicrobenchOptions& o) {
  const MicrobenchSpec spec{comm_type(o.collective), parse_size(o.size, "--size").count(), o.npus};
  const std::unique_ptr<Progress> progress = terminal_progress(false);
  const std::string prefix = write_microbench(o.out, spec, o.gzip, progress.get());
  std::cout << fmt::format("wrote {} rank files {}.<rank>.et\n", o.npus, prefix);
}

void register_microbench(CLI::App& generate) {
  auto o = std::make_shared<MicrobenchOptions>();
  CLI::App* cmd = generate.add_subcommand("microbench", "one collective per NPU, as ASTRA-sim's microbenchmarks");
  cmd->add_option("--collective", o->collective, "all_reduce | reduce_scatter | all_gather | all_to_all")->required();
  cmd->add_option("--npus", o->npus, "number of NPUs (rank files)")->required();
  cmd->add_option("--size", o->size, "comm_size, e.g. 1MiB (All-Gather: each NPU's contribution, as ASTRA-sim)")
      ->required();
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  cmd->callback([o] { run_microbench(*o); });
}

struct LlmOptions {
  std::string model;
  uint32_t dp = 1;
  uint32_t tp = 1;
  uint32_t pp = 1;
  std::optional<uint32_t> microbatches;  // default: pp, the fewest that fill the pipeline
  uint32_t microbatch_size = 1;
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  std::string gpu = "a100";
  std::optional<double> peak_perf;
  std::optional<double> mem_bw;
  std::string out;
  bool gzip = false;
  uint32_t cp = 1;
  uint32_t ep = 1;
  std::string fsdp = "none";
  bool symmetric = false;  // classes.json + one trace per pipeline stage (llm_symmetric.hpp)
  std::string exec;        // the planner's execution JSON: everything above from it (llm_engine/planned_spec.hpp)
  std::string system;      // with exec: the planner's system (its compute times)
};

// A preset name, or a Calculon-format application JSON (examples/llm/*.json).
llm::Application llm_model(const std::string& model) {
  if (auto preset = llm::model_preset(model))
    return *preset;
  if (model.ends_with(".json") || std::filesystem::exists(model))
    return llm::read_application(model);
  throw Error("", "--model",
              fmt::format("unknown model preset '{}'; expected one of {} or a Calculon-format JSON file", model,
                          fmt::join(llm::model_preset_names(), ", ")));
}

LlmTrainingSpec llm_spec(const LlmOptions& o) {
  LlmTrainingSpec spec;
  spec.model_name = o.model;
  spec.model = llm_model(o.model);
  spec.dp = o.dp;
  spec.tp = o.tp;
  spec.pp = o.pp;
  spec.microbatches = o.microbatches.value_or(o.pp);
  spec.microbatch_size = o.microbatch_size;
  spec.sequence_parallel = o.sequence_parallel;
  spec.distributed_optimizer = o.distributed_optimizer;
  const auto gpu = llm::gpu_preset(o.gpu);
  if (!gpu)
    machine::device(o.gpu, "gpu");  // names the nearest device preset
  if (!gpu)
    throw Error("", "--gpu", fmt::format("'{}' has no 16-bit matrix peak for the roofline", o.gpu));
  spec.peak_tflops = o.peak_perf.value_or(gpu->peak_tflops);
  spec.mem_bw_gbps = o.mem_bw.value_or(gpu->mem_bw_gbps);
  spec.cp = o.cp;
  spec.ep = o.ep;
  const std::pair<const char*, llm::Fsdp> stages[] = {{"none", llm::Fsdp::kNone},
                                                      {"zero1", llm::Fsdp::kZero1},
                                                      {"zero2", llm::Fsdp::kZero2},
                                                      {"zero3", llm::Fsdp::kZero3}};
  const auto* stage =
      std::find_if(std::begin(stages), std::end(stages), [&](const auto& p) { return o.fsdp == p.first; });
  if (stage == std::end(stages))
    throw Error("", "--fsdp", fmt::format("is '{}'; expected none, zero1, zero2 or zero3", o.fsdp));
  spec.fsdp = stage->second;
  // ZeRO-2/3 reduce-scatter each layer's gradients off the stream, as FSDP's separate communication stream does.
  spec.overlap_dp = spec.fsdp == llm::Fsdp::kZero2 || spec.fsdp == llm::Fsdp::kZero3;
  return spec;
}

// The planner's inputs, unchanged: the job `chorus llm run --engine sim` simulates.
LlmTrainingSpec planned_spec(const LlmOptions& o) {
  if (o.system.empty())
    throw Error("", "--system", "is required with --exec (the planner's compute times come from it)");
  const llm::Application app = llm_model(o.model);
  const llm::System sys = llm::resolve_system(o.system);
  const llm::Execution exe = llm::read_execution(o.exec, app, sys);
  const llm::Stats stats = llm::IterationModel(app, sys).evaluate(exe);
  if (stats.outcome != llm::Outcome::kOk)
    throw Error(o.exec, "(execution)", llm::describe_outcome(stats, sys));
  return planned_training_spec(app, sys, exe, stats, o.exec, std::filesystem::path(o.model).stem().string());
}

void run_llm(const LlmOptions& o) {
  if (!o.system.empty() && o.exec.empty())
    throw Error("", "--system", "applies only with --exec");
  const LlmTrainingSpec spec = o.exec.empty() ? llm_spec(o) : planned_spec(o);
  if (o.symmetric) {
    const std::string classes = write_llm_training_symmetric(o.out, spec, o.gzip);
    std::cout << fmt::format("wrote {} with {} rank classes (one per pipeline stage and CP index) for {} NPUs\n",
                             classes, spec.pp * spec.cp, spec.dp * spec.tp * spec.pp * spec.cp);
    std::cout << fmt::format("simulate: chorus sim --workload {} --network NET.yml\n", o.out);
    return;
  }
  const std::unique_ptr<Progress> progress = terminal_progress(false);
  const std::string prefix = write_llm_training(o.out, spec, o.gzip, progress.get());
  const uint32_t npus = spec.dp * spec.tp * spec.pp * spec.cp;
  std::cout << fmt::format("wrote {} rank files {}.<rank>.et and {}/comm_groups.json\n", npus, prefix, o.out);
  std::cout << fmt::format("{}: dp {} x tp {} x pp {}, {} microbatches of {} sequence(s), 1F1B{}{}\n", o.model, spec.dp,
                           spec.tp, spec.pp, spec.microbatches, spec.microbatch_size,
                           spec.sequence_parallel ? ", sequence parallel" : "",
                           spec.distributed_optimizer ? ", distributed optimizer" : "");
  if (spec.cp > 1 || spec.ep > 1 || spec.fsdp != llm::Fsdp::kNone)
    std::cout << fmt::format("context parallel {} (ring attention), expert parallel {}, ZeRO {}\n", spec.cp, spec.ep,
                             llm::to_string(spec.fsdp));
  std::cout << fmt::format("simulate: chorus sim --workload {} --comm-groups {}/comm_groups.json --network NET.yml\n",
                           prefix, o.out);
}

void register_llm(CLI::App& generate) {
  auto o = std::make_shared<LlmOptions>();
  CLI::App* cmd =
      generate.add_subcommand("llm", "a transformer training iteration with DP, TP (Megatron) and PP (1F1B)");
  cmd->add_option(
         "--model", o->model,
         fmt::format("preset ({}) or a Calculon-format application JSON", fmt::join(llm::model_preset_names(), ", ")))
      ->required();
  CLI::Option* exec = cmd->add_option(
      "--exec", o->exec,
      "the planner's execution JSON (Calculon format), with --system: the job llm run --engine sim simulates, with "
      "the planner's compute times (instead of --dp, --tp, ... and the roofline)");
  cmd->add_option("--system", o->system, "with --exec: the planner's system preset or JSON");
  const auto excluded = [exec](CLI::Option* option) { option->excludes(exec); };
  excluded(cmd->add_option("--dp", o->dp, "data-parallel degree"));
  excluded(cmd->add_option("--tp", o->tp, "tensor-parallel degree (divides attn_heads, kv_heads and feedforward)"));
  excluded(cmd->add_option("--pp", o->pp, "pipeline stages (divides num_blocks)"));
  excluded(cmd->add_option("--microbatches", o->microbatches, "microbatches per iteration (default: --pp)"));
  excluded(cmd->add_option("--microbatch-size", o->microbatch_size, "sequences per microbatch (default 1)"));
  excluded(
      cmd->add_flag("--sequence-parallel", o->sequence_parallel, "TP All-Gather/Reduce-Scatter instead of All-Reduce"));
  excluded(cmd->add_flag("--distributed-optimizer", o->distributed_optimizer,
                         "DP Reduce-Scatter of gradients and All-Gather of parameters instead of an All-Reduce"));
  cmd->add_option("--gpu", o->gpu,
                  "roofline preset: a device of `chorus machines` (dense 16-bit peak, HBM bandwidth); a100 (default) "
                  "and h100 stand for a100-80gb (312 TFLOPS, 2039 GB/s) and h100-80gb (989.5, 3350)");
  cmd->add_option("--peak-perf", o->peak_perf, "peak compute in TFLOPS (overrides --gpu)");
  cmd->add_option("--mem-bw", o->mem_bw, "memory bandwidth in GB/s (1e9 B/s; overrides --gpu)");
  cmd->add_option("--out", o->out, "output directory")->required();
  cmd->add_flag("--gzip", o->gzip, "gzip the .et files");
  excluded(cmd->add_option("--cp", o->cp, "context parallelism: ring attention over cp ranks (divides seq_size)"));
  excluded(cmd->add_option("--ep", o->ep,
                           "expert parallelism over the DP ranks (MoE models; divides --dp and the experts)"));
  excluded(cmd->add_option("--fsdp", o->fsdp,
                           "ZeRO stage: none (default), zero1 (= --distributed-optimizer), zero2, zero3"));
  cmd->add_flag("--symmetric", o->symmetric,
                "write one trace per pipeline stage and classes.json instead of one file per rank");
  cmd->callback([o] { run_llm(*o); });
}

}  // namespace

void register_generate_command(CLI::App& app) {
  CLI::App* generate = app.add_subcommand("generate", "generate workload traces (one Chakra .et file per NPU)");
  generate->require_subcommand(1);
  register_microbench(*generate);
  register_llm(*generate);
  register_generate_dlrm(*generate);
  register_generate_moe(*generate);
}

}  // namespace chorus::cli
