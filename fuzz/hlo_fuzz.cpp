// libFuzzer harness: the XLA HLO text parser (hlo/parser.hpp) and the cost model over what it accepts
// (hlo/cost.hpp), so shapes and attributes that parse but make the cost arithmetic misbehave are findings too.
#include <string_view>

#include "chorus/hlo/cost.hpp"
#include "chorus/hlo/parser.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  chorus::fuzz::read_accepting_errors([&] {
    const chorus::hlo::Module module = chorus::hlo::parse_module(text, "fuzz.hlo.txt");
    const chorus::hlo::CostModel costs(module);
    for (const chorus::hlo::Computation& c : module.computations)
      for (const chorus::hlo::Instruction& in : c.instructions)
        (void)costs.cost(c, in);
  });
  return 0;
}
