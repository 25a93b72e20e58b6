// libFuzzer harness: the LIBRA cost-model YAML reader (netopt/libra_inputs.hpp).
#include "chorus/netopt/libra_inputs.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("cost_model.yml", chorus::netopt::load_cost_model(path))
