// libFuzzer harness: the PyTorch execution-trace reader (pytorch/execution_trace.hpp) and the recovery of one
// rank's Chakra trace from what it accepts (pytorch/recover.hpp), as rank 0 of a world of 4, so call trees,
// storages and process groups that parse but trip the recovery are findings too.
#include <sstream>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/recover.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static chorus::fuzz::ScratchFile scratch("rank.et.0.json");
  const std::string& path = scratch.write(data, size);
  chorus::fuzz::read_accepting_errors([&] {
    std::ostringstream warnings;
    const chorus::pytorch::ExecutionTrace et = chorus::pytorch::read_execution_trace(path, &warnings);
    (void)chorus::pytorch::recover_rank(et, /*rank=*/0, /*world=*/4, nullptr);
  });
  return 0;
}
