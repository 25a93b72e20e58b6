// libFuzzer harness: the LIBRA workload text reader (netopt/libra_inputs.hpp).
#include "chorus/netopt/libra_inputs.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("workload.txt", chorus::netopt::load_workload(path))
