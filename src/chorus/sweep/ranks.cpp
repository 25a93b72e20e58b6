// MPI ranks of a sweep (see ranks.hpp).
#include "chorus/sweep/ranks.hpp"

#include <cstdlib>
#include <vector>

#ifdef CHORUS_HAVE_MPI
#include <mpi.h>
#endif

namespace chorus {

namespace {

constexpr const char* kLaunchVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};

[[maybe_unused]] bool launched_by_mpirun() {
  for (const char* name : kLaunchVariables) {
    if (std::getenv(name) != nullptr)
      return true;
  }
  return false;
}

}  // namespace

SweepRanks::SweepRanks() {
#ifdef CHORUS_HAVE_MPI
  if (!launched_by_mpirun())
    return;
  MPI_Init(nullptr, nullptr);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

SweepRanks::~SweepRanks() {
#ifdef CHORUS_HAVE_MPI
  if (initialised_)
    MPI_Finalize();
#endif
}

void SweepRanks::barrier() const {
#ifdef CHORUS_HAVE_MPI
  if (initialised_)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::string SweepRanks::broadcast(const std::string& text) const {
#ifdef CHORUS_HAVE_MPI
  if (initialised_) {
    auto length = static_cast<unsigned long long>(text.size());
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    std::vector<char> buffer(text.begin(), text.end());
    buffer.resize(length);
    MPI_Bcast(buffer.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return std::string(buffer.begin(), buffer.end());
  }
#endif
  return text;
}

uint64_t SweepRanks::sum(uint64_t value) const {
#ifdef CHORUS_HAVE_MPI
  if (initialised_) {
    auto local = static_cast<unsigned long long>(value), total = 0ULL;
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
  }
#endif
  return value;
}

void forget_mpi_launch() {
  for (const char* name : kLaunchVariables)
    ::unsetenv(name);
}

}  // namespace chorus
