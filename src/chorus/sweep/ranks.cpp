// MPI ranks of a sweep (see ranks.hpp).
#include "chorus/sweep/ranks.hpp"

#include <cstdlib>
#include <string>
#include <utility>

#ifdef CHORUS_HAVE_MPI
#include <mpi.h>
#endif

namespace chorus {

namespace {

// A non-negative integer from the environment, or -1.
int environment_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0')
    return -1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return *end == '\0' && value >= 0 && value < (1L << 24) ? static_cast<int>(value) : -1;
}

}  // namespace

SweepRanks::SweepRanks() {
  for (const auto& [rank, size] :
       {std::pair("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), std::pair("PMI_RANK", "PMI_SIZE")}) {
    const int r = environment_number(rank), s = environment_number(size);
    if (r >= 0 && s > r) {
      rank_ = r;
      size_ = s;
      return;
    }
  }
}

SweepRanks::~SweepRanks() {
#ifdef CHORUS_HAVE_MPI
  if (initialised_)
    MPI_Finalize();
#endif
}

uint64_t SweepRanks::sum(uint64_t value) {
#ifdef CHORUS_HAVE_MPI
  if (size_ > 1) {
    if (!initialised_) {
      MPI_Init(nullptr, nullptr);
      initialised_ = true;
    }
    auto local = static_cast<unsigned long long>(value), total = 0ULL;
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
  }
#endif
  return value;
}

void forget_mpi_launch() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    ::unsetenv(name);
}

}  // namespace chorus
