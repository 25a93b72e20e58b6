// libFuzzer harness: the LIBRA network-shape YAML reader (netopt/libra_inputs.hpp).
#include "chorus/netopt/libra_inputs.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("network.yml", chorus::netopt::load_libra_network(path))
