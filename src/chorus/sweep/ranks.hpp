// The MPI ranks a sweep is spread over (optional: compiled in under CHORUS_HAVE_MPI, as for `llm search`, see
// llm/distributed.hpp). Without MPI, or when not launched by mpirun, this is one rank and costs nothing.
//
//   SweepRanks ranks;                                   // MPI_Init when launched by mpirun
//   std::string header = ranks.broadcast(rank0_text);   // every rank gets rank 0's text
#pragma once

#include <cstdint>
#include <string>

namespace chorus {

class SweepRanks {
 public:
  SweepRanks();
  ~SweepRanks();
  SweepRanks(const SweepRanks&) = delete;
  SweepRanks& operator=(const SweepRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  // Rank 0's `text`, on every rank.
  std::string broadcast(const std::string& text) const;
  // The sum over the ranks, on every rank.
  uint64_t sum(uint64_t value) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

// Clears the variables by which a process knows it was started by mpirun, so that a job run in a child of a rank
// (an `llm search`) stays a group of one instead of joining MPI.
void forget_mpi_launch();

}  // namespace chorus
