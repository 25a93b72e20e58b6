// libFuzzer harness: the ASTRA-sim network YAML reader (topology/astra_network.hpp).
#include "chorus/topology/astra_network.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("network.yml", chorus::load_astra_network(path))
