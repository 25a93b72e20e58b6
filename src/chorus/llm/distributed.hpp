// Splitting `chorus llm search` over processes with MPI (optional: CMake option CHORUS_WITH_MPI, built only when
// an MPI library is found, as the plugin libchorus_mpi.so loaded when launched by mpirun: mpi/mpi.hpp).
//
// Under mpirun each rank searches every size-th outer task (run_search's rank/ranks) and the ranks' results
// are merged on rank 0: counts are summed, the slowest rank's time is kept, and the top lists are merged by
// the same (sample rate, enumeration order) rule as threads, so the answer does not depend on the rank count.
// Without MPI, or when not launched by mpirun, this is a group of one and costs nothing.
//
//   ProcessGroup group;                       // MPI_Init when launched by mpirun
//   spec.rank = group.rank(); spec.ranks = group.size();
//   SearchResult r = group.merge(run_search(model, spec), model, spec.top_n);
#pragma once

#include "chorus/llm/search.hpp"

namespace chorus::llm {

class ProcessGroup {
 public:
  ProcessGroup();
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  static bool mpi_available();  // built with MPI (its plugin)
  void barrier() const;
  // On rank 0: the merged result. On other ranks: their own result, unchanged.
  SearchResult merge(const SearchResult& local, const IterationModel& model, int top_n) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

}  // namespace chorus::llm
