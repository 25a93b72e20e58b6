// chorus::Error and the assertion handler.
#include "chorus/core/error.hpp"

#include "chorus/core/assert.hpp"

namespace chorus {

namespace {
std::string compose(const std::string& source, const std::string& field, const std::string& message) {
  std::string out;
  if (!source.empty())
    out += source + ": ";
  if (!field.empty())
    out += field + ": ";
  return out + message;
}
}  // namespace

Error::Error(std::string source, Field field, std::string message)
    : std::runtime_error(compose(source, field.name, message)),
      source_(std::move(source)),
      field_(std::move(field.name)),
      message_(std::move(message)),
      argument_(field.argument) {}

void assertion_failed(const char* condition, const char* file, int line, const std::string& message) {
  throw InternalError(
      fmt::format("internal error at {}:{}: assertion '{}' failed: {}", file, line, condition, message));
}

}  // namespace chorus
