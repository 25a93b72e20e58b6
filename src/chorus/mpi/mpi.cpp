// MPI through its plugin (see mpi.hpp). CMake defines CHORUS_HAVE_MPI=1 on this file when it builds the plugin.
#include "chorus/mpi/mpi.hpp"

#include <cstdlib>

namespace chorus::mpi {

bool built() {
#if CHORUS_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

const Functions& functions() {
  return load_plugin<Functions>(kMpiPlugin);
}

}  // namespace chorus::mpi
