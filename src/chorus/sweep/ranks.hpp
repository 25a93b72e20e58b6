// The MPI ranks a sweep is spread over. The rank and the rank count come from the launcher's environment
// (mpirun sets OMPI_COMM_WORLD_RANK / _SIZE, other launchers PMI_RANK / PMI_SIZE); MPI itself (optional: the plugin
// of mpi/mpi.hpp, as for `llm search`) is initialised only by sum(), after the
// points have run: each point runs in a forked child, and forking an MPI process costs more (its threads, its
// shared-memory mappings) and is not supported by every transport. Not launched by mpirun: one rank.
//
//   SweepRanks ranks;                                   // rank() and size() from the environment
//   uint64_t total = ranks.sum(mine);                   // MPI_Init (once), then an all-reduce
#pragma once

#include <cstdint>

namespace chorus {

class SweepRanks {
 public:
  SweepRanks();
  ~SweepRanks();
  SweepRanks(const SweepRanks&) = delete;
  SweepRanks& operator=(const SweepRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The sum over the ranks, on every rank (joins MPI on first use; without MPI, the rank's own value).
  uint64_t sum(uint64_t value);

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

// Clears the variables by which a process knows it was started by mpirun, so that a job run in a child of a rank
// (an `llm search`) stays a group of one instead of joining MPI.
void forget_mpi_launch();

}  // namespace chorus
