// MPI split of the search (see distributed.hpp), through the MPI plugin (mpi/mpi.hpp).
#include "chorus/llm/distributed.hpp"

#include <algorithm>
#include <array>

#include "chorus/mpi/mpi.hpp"

namespace chorus::llm {
namespace {

constexpr size_t kPacked = 29;

std::array<int64_t, kPacked> pack(const Candidate& c) {
  const Execution& e = c.execution;
  return {static_cast<int64_t>(c.ordinal),
          e.num_procs,
          e.tensor_par,
          e.pipeline_par,
          e.data_par,
          e.tensor_par_net,
          e.pipeline_par_net,
          e.data_par_net,
          e.batch_size,
          e.microbatch_size,
          e.datatype,
          e.fused_activation,
          e.multiquery,
          static_cast<int64_t>(e.recompute),
          e.pipeline_interleaving,
          e.optimizer_sharding,
          static_cast<int64_t>(e.tp_comm),
          static_cast<int64_t>(e.tp_overlap),
          e.seq_par_ag_redo,
          e.data_par_overlap,
          e.weight_offload,
          e.activations_offload,
          e.optimizer_offload,
          e.training,
          e.expert_par,  // the search sets EP for MoE models
          e.context_par,
          static_cast<int64_t>(e.fsdp),
          static_cast<int64_t>(e.tp_gemm_overlap),
          e.fused_attention};
}

Candidate unpack(const int64_t* p, const IterationModel& model) {
  Candidate c;
  Execution& e = c.execution;
  c.ordinal = static_cast<uint64_t>(p[0]);
  e.num_procs = p[1];
  e.tensor_par = p[2];
  e.pipeline_par = p[3];
  e.data_par = p[4];
  e.tensor_par_net = static_cast<int8_t>(p[5]);
  e.pipeline_par_net = static_cast<int8_t>(p[6]);
  e.data_par_net = static_cast<int8_t>(p[7]);
  e.batch_size = p[8];
  e.microbatch_size = p[9];
  e.datatype = static_cast<int>(p[10]);
  e.fused_activation = p[11] != 0;
  e.multiquery = p[12] != 0;
  e.recompute = static_cast<Recompute>(p[13]);
  e.pipeline_interleaving = p[14];
  e.optimizer_sharding = p[15] != 0;
  e.tp_comm = static_cast<TpCommType>(p[16]);
  e.tp_overlap = static_cast<TpOverlap>(p[17]);
  e.seq_par_ag_redo = p[18] != 0;
  e.data_par_overlap = p[19] != 0;
  e.weight_offload = p[20] != 0;
  e.activations_offload = p[21] != 0;
  e.optimizer_offload = p[22] != 0;
  e.training = p[23] != 0;
  e.expert_par = p[24];
  e.context_par = p[25];
  e.fsdp = static_cast<Fsdp>(p[26]);
  e.tp_gemm_overlap = static_cast<TpGemmOverlap>(p[27]);
  e.fused_attention = p[28] != 0;
  place_block_groups(e, model.system());  // as the search placed them
  // The model is deterministic, so re-evaluating gives the sending rank's statistics exactly.
  c.stats = model.evaluate(e);
  c.sample_rate = c.stats.sample_rate;
  return c;
}

}  // namespace

bool ProcessGroup::mpi_available() {
  return mpi::built();
}

ProcessGroup::ProcessGroup() {
  if (!mpi::built() || !mpi::launched_by_mpirun())
    return;
  const mpi::Functions& m = mpi::functions();
  m.init();
  initialised_ = true;
  rank_ = m.rank();
  size_ = m.size();
}

ProcessGroup::~ProcessGroup() {
  if (initialised_)
    mpi::functions().finalize();
}

void ProcessGroup::barrier() const {
  if (initialised_)
    mpi::functions().barrier();
}

SearchResult ProcessGroup::merge(const SearchResult& local, const IterationModel& model, int top_n) const {
  if (size_ == 1)
    return local;
  const mpi::Functions& m = mpi::functions();
  SearchResult merged = local;
  std::array<int64_t, 4> counts = {local.enumerated, local.evaluated, local.valid, local.pruned};
  std::array<int64_t, 4> sums{};
  m.sum_to_root(counts.data(), sums.data(), 4);
  m.max_to_root(&local.seconds, &merged.seconds, 1);
  // Every rank sends exactly top_n slots; unused ones carry ordinal -1.
  std::vector<int64_t> mine(static_cast<size_t>(top_n) * kPacked, -1);
  for (size_t i = 0; i < local.top.size() && i < static_cast<size_t>(top_n); ++i) {
    auto p = pack(local.top[i]);
    std::copy(p.begin(), p.end(), mine.begin() + static_cast<std::ptrdiff_t>(i * kPacked));
  }
  std::vector<int64_t> all(rank_ == 0 ? mine.size() * static_cast<size_t>(size_) : 0);
  m.gather_to_root(mine.data(), static_cast<int>(mine.size()), all.data());
  if (rank_ != 0)
    return local;
  merged.enumerated = sums[0];
  merged.evaluated = sums[1];
  merged.valid = sums[2];
  merged.pruned = sums[3];
  std::vector<Candidate> others;
  for (int r = 1; r < size_; ++r) {
    for (int i = 0; i < top_n; ++i) {
      const int64_t* p = all.data() + (static_cast<size_t>(r * top_n + i) * kPacked);
      if (p[0] >= 0)
        others.push_back(unpack(p, model));
    }
  }
  merge_top(merged.top, others, top_n);
  return merged;
}

}  // namespace chorus::llm
