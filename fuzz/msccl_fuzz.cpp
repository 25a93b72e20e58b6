// libFuzzer harness: the MSCCL XML reader (msccl/read_msccl.hpp), then matching, ordering and the semantic check
// (msccl/schedule.hpp) and the Schedule of what it accepts, from memory (no scratch file).
#include <string_view>

#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  chorus::fuzz::read_accepting_errors([&] {
    const chorus::MscclAlgorithm a = chorus::make_msccl_algorithm(chorus::parse_msccl_xml(text, "fuzz.xml"));
    (void)chorus::msccl_schedule(a, chorus::Bytes(1 << 20));
  });
  return 0;
}
