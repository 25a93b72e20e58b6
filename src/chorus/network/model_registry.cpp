// The network-model registry (see model_registry.hpp).
#include "chorus/network/model_registry.hpp"

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/network/packet/packet_options.hpp"

namespace chorus {

void NetworkModelRegistry::add(std::unique_ptr<NetworkModel> model) {
  CHORUS_ASSERT(find(model->info().name) == nullptr, "network model '{}' registered twice", model->info().name);
  models_.push_back(std::move(model));
}

const NetworkModel* NetworkModelRegistry::find(std::string_view name) const {
  for (const auto& m : models_) {
    if (m->info().name == name)
      return m.get();
  }
  return nullptr;
}

const NetworkModel& NetworkModelRegistry::get(NetworkModelKind kind) const {
  for (const auto& m : models_) {
    if (m->info().kind == kind)
      return *m;
  }
  CHORUS_ASSERT(false, "network model kind {} is not registered", static_cast<int>(kind));
  return *models_.front();
}

std::string NetworkModelRegistry::names() const {
  std::string out;
  for (const auto& m : models_) {
    if (!out.empty())
      out += ", ";
    out += m->info().name;
  }
  return out;
}

std::string NetworkModelRegistry::help() const {
  std::string out = "network model:";
  for (size_t i = 0; i < models_.size(); ++i) {
    const NetworkModelInfo& info = models_[i]->info();
    out += fmt::format("\n  {}{}: {}", info.name, i == 0 ? " (default)" : "", info.description);
  }
  return out;
}

const NetworkModelRegistry& network_models() {
  // Built on first use, immutable afterwards (C++ guarantees one thread-safe initialisation).
  static const NetworkModelRegistry registry = [] {
    NetworkModelRegistry r;
    register_builtin_models(r);
    return r;
  }();
  return registry;
}

std::string to_string(NetworkModelKind kind) {
  return std::string(network_models().get(kind).info().name);
}

std::optional<NetworkModelKind> parse_network_model(std::string_view text) {
  if (const NetworkModel* m = network_models().find(text))
    return m->info().kind;
  return std::nullopt;
}

NetworkModelKind network_model_argument(std::string_view text, std::string_view argument) {
  if (const std::optional<NetworkModelKind> kind = parse_network_model(text))
    return *kind;
  if (text == "packet")
    throw Error("", Argument{std::string(argument)}, packet_model_missing_message());
  throw Error("", Argument{std::string(argument)},
              fmt::format("unknown network model '{}'; expected one of {}", text, network_models().names()));
}

}  // namespace chorus
