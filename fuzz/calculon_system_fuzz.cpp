// libFuzzer harness: the Calculon system JSON reader (llm/inputs.hpp).
#include "chorus/llm/inputs.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("system.json", chorus::llm::read_system(path))
