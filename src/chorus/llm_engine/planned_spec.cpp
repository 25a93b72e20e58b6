// The planner's execution as a generator spec (see planned_spec.hpp).
#include "chorus/llm_engine/planned_spec.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/hardware.hpp"

namespace chorus {

namespace {

// The exec keys whose effect the generated trace cannot carry, each with the reason.
void refuse_inexpressible(const llm::Execution& exe, const std::string& file) {
  if (!exe.training) {
    throw Error(file, "training",
                "is false; the simulator engine generates training iterations (use the planner for inference)");
  }
  if (exe.ep_overlap) {
    throw Error(file, "ep_overlap",
                "is true; the generated trace runs each microbatch's passes in turn, so one microbatch's All-to-All "
                "cannot hide behind another's compute (use the planner)");
  }
}

uint32_t narrow(int64_t value) {
  return static_cast<uint32_t>(value);  // parse_execution bounded every count by the NPU limit
}

}  // namespace

LlmTrainingSpec planned_training_spec(const llm::Application& app, const llm::System& sys, const llm::Execution& exe,
                                      const llm::Stats& stats, const std::string& exec_file,
                                      const std::string& model_name) {
  refuse_inexpressible(exe, exec_file);
  const llm::Hardware hw(sys, exe.datatype);
  LlmTrainingSpec spec;
  spec.model_name = model_name;
  spec.model = app;
  spec.dp = narrow(exe.data_par);
  spec.tp = narrow(exe.tensor_par);
  spec.pp = narrow(exe.pipeline_par);
  spec.cp = narrow(exe.context_par);
  spec.ep = narrow(exe.expert_par);
  spec.microbatches = narrow(stats.shape.microbatches);
  spec.microbatch_size = narrow(exe.microbatch_size);
  // Calculon's rs_ag and p2p_rs_ag both keep the activations sequence-sharded between the TP collectives.
  spec.sequence_parallel = exe.tensor_par > 1 && exe.tp_comm != llm::TpCommType::kAr;
  spec.pipeline_scatter = exe.tensor_par > 1 && !spec.sequence_parallel;
  spec.ag_redo = spec.sequence_parallel && exe.seq_par_ag_redo;
  spec.tp_overlap = exe.tensor_par > 1 &&
                    (exe.tp_overlap != llm::TpOverlap::kNone || exe.tp_gemm_overlap != llm::TpGemmOverlap::kNone);
  spec.distributed_optimizer = exe.optimizer_sharding;
  spec.fsdp = exe.fsdp;
  spec.bytes_per_element = hw.bytes_per_element();
  spec.peak_tflops = hw.matrix_peak() / 1e12;
  spec.mem_bw_gbps = hw.mem1().bytes_per_second / 1e9;
  spec.interleaving = exe.pipeline_par > 1 ? narrow(exe.pipeline_interleaving) : 1;
  spec.recompute = exe.recompute;
  spec.overlap_dp = exe.data_par_overlap;
  spec.pipeline_send_overlap = exe.pipeline_p2p_overlap;
  const double blocks = static_cast<double>(stats.shape.blocks_per_proc);
  // Offloading to host memory is local to each GPU: what its transfers leave exposed lengthens the block's passes.
  const double block_passes = blocks * static_cast<double>(stats.shape.microbatches);
  spec.planned = PlannerTimes{
      .block_forward_s = stats.block.fw.time + stats.fw_offload_exposed_time / block_passes,
      .block_backward_s = stats.block.bw.time + stats.bw_offload_exposed_time / block_passes,
      .block_recompute_s = stats.block.re.time,
      .head_s = stats.head.time,
      .optimizer_s = blocks > 0 ? stats.optim_step_time / blocks : 0,
  };
  validate(spec);
  return spec;
}

}  // namespace chorus
