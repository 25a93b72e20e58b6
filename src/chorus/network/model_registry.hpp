// The registry of network models: name <-> kind <-> implementation, and the --help text listing them.
//
// Built once by register_builtin_models(); network_models() returns that immutable registry.
//
//   const NetworkModel* m = network_models().find("flow");
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/network/network_model.hpp"

namespace chorus {

class NetworkModelRegistry {
 public:
  void add(std::unique_ptr<NetworkModel> model);
  const NetworkModel* find(std::string_view name) const;
  const NetworkModel& get(NetworkModelKind kind) const;
  const std::vector<std::unique_ptr<NetworkModel>>& models() const { return models_; }
  // The registered names, comma-separated, e.g. "unaware, aware, flow".
  std::string names() const;
  // For --help: one "name: description" per model, the first marked as the default.
  std::string help() const;

 private:
  std::vector<std::unique_ptr<NetworkModel>> models_;
};

// unaware (the default, first), aware, flow.
void register_builtin_models(NetworkModelRegistry& registry);

// The built-in models, registered on first use and never changed after.
const NetworkModelRegistry& network_models();

std::string to_string(NetworkModelKind kind);
std::optional<NetworkModelKind> parse_network_model(std::string_view text);
// The same for a call's `model` argument (or the one named `argument`): throws chorus::Error naming it and the
// models there are.
NetworkModelKind network_model_argument(std::string_view text, std::string_view argument = "model");

}  // namespace chorus
