// libFuzzer harness: the co-design network template reader (codesign/network_template.hpp).
#include "chorus/codesign/network_template.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("template.yml", chorus::codesign::load_network_template(path))
