// The plugin libchorus_mpi.so: the MPI calls of mpi.hpp's Functions on MPI_COMM_WORLD. Built as its own shared
// library, linked with MPI alone; not part of libchorus.
// The C API only: MPI-2's C++ bindings (deprecated) do not compile warnings-clean.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "chorus/mpi/mpi.hpp"

namespace chorus::mpi {
namespace {

void init() {
  MPI_Init(nullptr, nullptr);
}

void finalize() {
  MPI_Finalize();
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void barrier() {
  MPI_Barrier(MPI_COMM_WORLD);
}

void sum_to_root(const int64_t* in, int64_t* out, int count) {
  MPI_Reduce(in, out, count, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
}

void max_to_root(const double* in, double* out, int count) {
  MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

void gather_to_root(const int64_t* mine, int count, int64_t* all) {
  MPI_Gather(mine, count, MPI_INT64_T, all, count, MPI_INT64_T, 0, MPI_COMM_WORLD);
}

uint64_t sum_all(uint64_t value) {
  auto local = static_cast<unsigned long long>(value), total = 0ULL;
  MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return static_cast<uint64_t>(total);
}

constexpr Functions kTable{{kMpiPlugin.interface_version, CHORUS_PLUGIN_VERSION},
                           &init,
                           &finalize,
                           &rank,
                           &size,
                           &barrier,
                           &sum_to_root,
                           &max_to_root,
                           &gather_to_root,
                           &sum_all};

}  // namespace
}  // namespace chorus::mpi

CHORUS_PLUGIN_EXPORT const chorus::PluginHeader* chorus_plugin_mpi() {
  return &chorus::mpi::kTable.header;
}
