// libFuzzer harness: the ASTRA-sim remote-memory JSON reader (runtime/remote_memory.hpp).
#include "chorus/runtime/remote_memory.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("memory.json", chorus::load_remote_memory(path))
