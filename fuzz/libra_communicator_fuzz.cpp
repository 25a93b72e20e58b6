// libFuzzer harness: the LIBRA communicator YAML reader (netopt/libra_inputs.hpp), checked against the shipped
// 3-D network shape (the reader's other input).
#include "chorus/netopt/libra_inputs.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {
const chorus::netopt::NetworkShape& network() {
  static const chorus::netopt::NetworkShape shape =
      chorus::netopt::load_libra_network(CHORUS_SOURCE_DIR "/examples/netopt/network_3d.yml");
  return shape;
}
}  // namespace

CHORUS_FUZZ_PATH_READER("communicator.yml", chorus::netopt::load_communicator(path, network()))
