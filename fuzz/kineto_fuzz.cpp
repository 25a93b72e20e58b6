// libFuzzer harness: the Kineto join (pytorch/kineto.hpp) of a fuzzed chrome trace against a fixed execution trace
// (tests/data/pytorch/kineto_gpu_2r.et.0.json), which also walks the measured critical path (kineto_path.hpp), so
// timelines that parse but trip the matching or the walk are findings too.
#include <sstream>

#include "chorus/pytorch/execution_trace.hpp"
#include "chorus/pytorch/kineto.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const chorus::pytorch::ExecutionTrace et = [] {
    std::ostringstream warnings;
    return chorus::pytorch::read_execution_trace(
        std::string(CHORUS_SOURCE_DIR) + "/tests/data/pytorch/kineto_gpu_2r.et.0.json", &warnings);
  }();
  static chorus::fuzz::ScratchFile scratch("rank.kineto.0.json");
  const std::string& path = scratch.write(data, size);
  chorus::fuzz::read_accepting_errors([&] { (void)chorus::pytorch::join_kineto(path, et); });
  return 0;
}
