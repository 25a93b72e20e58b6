// libFuzzer harness: the ASTRA-sim system JSON reader (astra/system_config.hpp).
#include "chorus/astra/system_config.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("system.json", chorus::load_astra_system(path))
