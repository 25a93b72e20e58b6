// libFuzzer harness: the communicator-group JSON reader (workload/workload.hpp), read by load_workload
// alongside a fixed workload of four empty rank traces written once into the harness's scratch directory.
#include <fmt/format.h>

#include "chorus/chakra/trace.hpp"
#include "chorus/workload/workload.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {

constexpr int kRanks = 4;

// The workload prefix, after writing its rank files next to the group file on first use.
std::string workload_prefix(const chorus::fuzz::ScratchFile& scratch) {
  const std::string prefix = scratch.directory() + "/workload";
  for (int rank = 0; rank < kRanks; ++rank) {
    chorus::chakra::ChakraTrace trace;
    trace.version = "0.0.4";
    chorus::chakra::write_chakra_trace(fmt::format("{}.{}.et", prefix, rank), trace, false);
  }
  return prefix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static chorus::fuzz::ScratchFile scratch("comm_groups.json");
  static const std::string prefix = workload_prefix(scratch);
  const std::string& path = scratch.write(data, size);
  chorus::fuzz::read_accepting_errors([&] { (void)chorus::load_workload(prefix, path); });
  return 0;
}
