// MPI split of the search (see distributed.hpp).
#include "chorus/llm/distributed.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#ifdef CHORUS_HAVE_MPI
#include <mpi.h>
#endif

namespace chorus::llm {
namespace {

#ifdef CHORUS_HAVE_MPI
bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

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
#endif

}  // namespace

bool ProcessGroup::mpi_available() {
#ifdef CHORUS_HAVE_MPI
  return true;
#else
  return false;
#endif
}

ProcessGroup::ProcessGroup() {
#ifdef CHORUS_HAVE_MPI
  if (!launched_by_mpirun())
    return;
  MPI_Init(nullptr, nullptr);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

ProcessGroup::~ProcessGroup() {
#ifdef CHORUS_HAVE_MPI
  if (initialised_)
    MPI_Finalize();
#endif
}

void ProcessGroup::barrier() const {
#ifdef CHORUS_HAVE_MPI
  if (initialised_)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

SearchResult ProcessGroup::merge(const SearchResult& local, [[maybe_unused]] const IterationModel& model,
                                 [[maybe_unused]] int top_n) const {
  if (size_ == 1)
    return local;
#ifdef CHORUS_HAVE_MPI
  SearchResult merged = local;
  std::array<int64_t, 4> counts = {local.enumerated, local.evaluated, local.valid, local.pruned};
  std::array<int64_t, 4> sums{};
  MPI_Reduce(counts.data(), sums.data(), 4, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&local.seconds, &merged.seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  // Every rank sends exactly top_n slots; unused ones carry ordinal -1.
  std::vector<int64_t> mine(static_cast<size_t>(top_n) * kPacked, -1);
  for (size_t i = 0; i < local.top.size() && i < static_cast<size_t>(top_n); ++i) {
    auto p = pack(local.top[i]);
    std::copy(p.begin(), p.end(), mine.begin() + static_cast<std::ptrdiff_t>(i * kPacked));
  }
  std::vector<int64_t> all(rank_ == 0 ? mine.size() * static_cast<size_t>(size_) : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(), static_cast<int>(mine.size()),
             MPI_INT64_T, 0, MPI_COMM_WORLD);
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
#else
  return local;
#endif
}

}  // namespace chorus::llm
