// libFuzzer harness: the edge-list topology reader (topology/edge_list.hpp).
#include "chorus/topology/edge_list.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("topology.txt", chorus::load_edge_list(path))
