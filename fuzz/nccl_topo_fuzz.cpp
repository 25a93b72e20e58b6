// libFuzzer harness: the NCCL topology XML reader (topology/nccl_topo.hpp), from memory (no scratch file).
#include <string_view>

#include "chorus/topology/nccl_topo.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  chorus::fuzz::read_accepting_errors([&] { (void)chorus::parse_nccl_topology(text, "fuzz.xml"); });
  return 0;
}
