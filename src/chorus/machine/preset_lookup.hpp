// Looking a device or machine preset up by name, shared by devices.cpp and machines.cpp: the preset, the names in
// order, and the error that names the nearest one.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace chorus::machine {

template <typename Preset>
const Preset* find_by_name(std::span<const Preset> presets, std::string_view name) {
  for (const Preset& p : presets) {
    if (name == p.name)
      return &p;
  }
  return nullptr;
}

template <typename Preset>
std::vector<std::string> names_of(std::span<const Preset> presets) {
  std::vector<std::string> names;
  for (const Preset& p : presets)
    names.emplace_back(p.name);
  return names;
}

// Throws chorus::Error on the argument `field`: "'NAME' is not a KIND preset; did you mean ...? (presets: ...)".
[[noreturn]] void throw_unknown_preset(std::string_view kind, std::string_view name,
                                       const std::vector<std::string>& names, std::string_view field);

}  // namespace chorus::machine
