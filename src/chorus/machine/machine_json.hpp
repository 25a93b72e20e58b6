// Devices and machines as JSON, for `chorus machines --json` and scripts: every field in the units of device.hpp and
// machine.hpp (FLOP/s, B/s, GiB), plus `sources` [{fields, text}].
#pragma once

#include <nlohmann/json.hpp>

#include "chorus/machine/machine.hpp"

namespace chorus::machine {

nlohmann::ordered_json to_json(const Device& d);
nlohmann::ordered_json to_json(const Machine& m);

}  // namespace chorus::machine
