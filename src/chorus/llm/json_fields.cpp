// Strict JSON field reading for the LLM planner's input files (see json_fields.hpp).
#include "chorus/llm/json_fields.hpp"

#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/json_file.hpp"

namespace chorus::llm {

namespace {
// Every integer of Calculon's inputs (dimensions, heads, parallelism, batch sizes) is at most 2^24: the largest
// real values are far below it, and products of three of them still fit in 64 bits.
constexpr int64_t kMaxInteger = int64_t{1} << 24;
}  // namespace

nlohmann::json read_json_file(const std::string& path) {
  return load_json_file(path);
}

FieldReader::FieldReader(const nlohmann::json& object, std::string file, std::string prefix)
    : object_(object), file_(std::move(file)), prefix_(std::move(prefix)) {
  if (!object_.is_object())
    throw Error(file_, prefix_.empty() ? "(top level)" : prefix_, "must be a JSON object");
}

std::string FieldReader::field(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : fmt::format("{}.{}", prefix_, key);
}

bool FieldReader::has(std::string_view key) const {
  return object_.contains(key);
}

const nlohmann::json& FieldReader::require(std::string_view key) {
  auto it = object_.find(key);
  if (it == object_.end())
    throw Error(file_, field(key), "missing key");
  used_.emplace(key);
  return *it;
}

const nlohmann::json& FieldReader::raw(std::string_view key) {
  return require(key);
}

double FieldReader::number(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_number())
    throw Error(file_, field(key), fmt::format("is {}; must be a number", v.dump()));
  double x = v.get<double>();
  if (!std::isfinite(x))
    throw Error(file_, field(key), "must be finite");
  return x;
}

int64_t FieldReader::non_negative_int(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_number_integer())
    throw Error(file_, field(key), fmt::format("is {}; must be an integer", v.dump()));
  // Unsigned values past 2^63 would wrap in get<int64_t>(); compare before converting.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxInteger))
    throw Error(file_, field(key), fmt::format("is {}; must be at most {}", v.dump(), kMaxInteger));
  int64_t x = v.get<int64_t>();
  if (x < 0)
    throw Error(file_, field(key), fmt::format("is {}; must be >= 0", x));
  return x;
}

int64_t FieldReader::positive_int(std::string_view key) {
  int64_t x = non_negative_int(key);
  if (x == 0)
    throw Error(file_, field(key), "is 0; must be > 0");
  return x;
}

double FieldReader::positive_number(std::string_view key) {
  double x = number(key);
  if (x <= 0)
    throw Error(file_, field(key), fmt::format("is {}; must be > 0", x));
  return x;
}

double FieldReader::non_negative_number(std::string_view key) {
  double x = number(key);
  if (x < 0)
    throw Error(file_, field(key), fmt::format("is {}; must be >= 0", x));
  return x;
}

double FieldReader::fraction(std::string_view key) {
  double x = number(key);
  if (x < 0 || x > 1)
    throw Error(file_, field(key), fmt::format("is {}; must be in [0, 1]", x));
  return x;
}

bool FieldReader::boolean(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_boolean())
    throw Error(file_, field(key), fmt::format("is {}; must be true or false", v.dump()));
  return v.get<bool>();
}

std::string FieldReader::string(std::string_view key) {
  const auto& v = require(key);
  if (!v.is_string())
    throw Error(file_, field(key), fmt::format("is {}; must be a string", v.dump()));
  return v.get<std::string>();
}

FieldReader FieldReader::object(std::string_view key) {
  return FieldReader(require(key), file_, field(key));
}

void FieldReader::finish() const {
  for (const auto& [key, value] : object_.items()) {
    if (!used_.contains(key))
      throw Error(file_, field(key), "unknown key");
  }
}

}  // namespace chorus::llm
