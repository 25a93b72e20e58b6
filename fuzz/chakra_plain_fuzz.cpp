// libFuzzer harness: the Chakra trace reader (chakra/trace.hpp) on the raw bytes of a file, which the
// reader takes as plain or, when they start with the gzip magic, as gzip.
#include "chorus/chakra/trace.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("trace.0.et", chorus::chakra::read_chakra_trace(path))
