// MPI for the jobs that split over mpirun's ranks (`chorus llm search`, llm/distributed.hpp; `chorus sweep`,
// sweep/ranks.hpp), through the plugin libchorus_mpi.so (mpi_plugin.cpp, the one file that includes mpi.h),
// loaded on first use: a process that never joins MPI never maps libmpi.
//
// MPI is optional (CMake option CHORUS_WITH_MPI, built when an MPI library is found): without it, built() is false
// and callers stay a group of one, as they always did. With it, functions() loads the plugin (RTLD_GLOBAL: Open
// MPI's own components resolve libmpi's symbols) and throws chorus::Error when the plugin cannot be loaded.
//
//   if (mpi::built() && mpi::launched_by_mpirun()) {
//     const mpi::Functions& m = mpi::functions();
//     m.init(); int rank = m.rank();
//   }
#pragma once

#include <cstdint>

#include "chorus/plugin/plugin.hpp"

namespace chorus::mpi {

// The few MPI calls chorus makes, on MPI_COMM_WORLD; reductions and gathers to root 0.
struct Functions {
  PluginHeader header;
  void (*init)();      // MPI_Init
  void (*finalize)();  // MPI_Finalize
  int (*rank)();
  int (*size)();
  void (*barrier)();
  void (*sum_to_root)(const int64_t* in, int64_t* out, int count);  // MPI_Reduce, MPI_SUM
  void (*max_to_root)(const double* in, double* out, int count);    // MPI_Reduce, MPI_MAX
  // MPI_Gather of `count` values per rank into `all` (size x count, read on root only).
  void (*gather_to_root)(const int64_t* mine, int count, int64_t* all);
  uint64_t (*sum_all)(uint64_t value);  // MPI_Allreduce, MPI_SUM
};

inline constexpr PluginSpec kMpiPlugin{"mpi", "splitting the job over mpirun's ranks (MPI)", 1, true};

// Whether this chorus was built with MPI (the plugin exists).
bool built();

// Whether the process was started by mpirun (Open MPI's, MPICH's or a PMIx launcher's environment).
bool launched_by_mpirun();

// The MPI functions, the plugin loaded on the first call; throws chorus::Error when it cannot be loaded.
const Functions& functions();

}  // namespace chorus::mpi
