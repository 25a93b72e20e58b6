// libFuzzer harness: the co-design price-list reader (codesign/cost_file.hpp), checked against the shipped two-tier
// template (the reader's other input: the dimension names).
#include "chorus/codesign/cost_file.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {
const chorus::codesign::NetworkTemplate& network_template() {
  static const chorus::codesign::NetworkTemplate t =
      chorus::codesign::load_network_template(CHORUS_SOURCE_DIR "/examples/codesign/rail_2tier.yml");
  return t;
}
}  // namespace

CHORUS_FUZZ_PATH_READER("cost.yml", chorus::codesign::load_cost_file(path, network_template()))
