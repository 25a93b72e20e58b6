// libFuzzer harness: the Calculon application (model) JSON reader (llm/inputs.hpp).
#include "chorus/llm/inputs.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("model.json", chorus::llm::read_application(path))
