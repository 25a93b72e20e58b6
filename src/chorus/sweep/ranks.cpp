// MPI ranks of a sweep (see ranks.hpp), MPI itself through its plugin (mpi/mpi.hpp).
#include "chorus/sweep/ranks.hpp"

#include <cstdlib>
#include <string>
#include <utility>

#include "chorus/mpi/mpi.hpp"

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
  if (initialised_)
    mpi::functions().finalize();
}

uint64_t SweepRanks::sum(uint64_t value) {
  if (size_ > 1 && mpi::built()) {
    const mpi::Functions& m = mpi::functions();
    if (!initialised_) {
      m.init();
      initialised_ = true;
    }
    return m.sum_all(value);
  }
  return value;
}

void forget_mpi_launch() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    ::unsetenv(name);
}

}  // namespace chorus
