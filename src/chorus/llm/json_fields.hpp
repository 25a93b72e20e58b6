// Strict reading of the JSON objects in Calculon's input files (model, system, execution).
//
// FieldReader wraps one JSON object and a path for messages ("a100.json", "mem1"). Every getter
// names the key it reads; finish() rejects any key nobody asked for, so a misspelt key is an error
// instead of a silently ignored default. Errors are chorus::Error(file, "mem1.GBps", message).
//
//   FieldReader r(json, "a100.json", "mem1");
//   double gib = r.positive_number("GiB");
//   r.finish();
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace chorus::llm {

// Reads and parses a JSON file; a missing or malformed file is a chorus::Error naming it.
nlohmann::json read_json_file(const std::string& path);

class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string file, std::string prefix = "");

  bool has(std::string_view key) const;
  const nlohmann::json& raw(std::string_view key);  // marks the key as used
  int64_t positive_int(std::string_view key);
  int64_t non_negative_int(std::string_view key);
  double positive_number(std::string_view key);
  double non_negative_number(std::string_view key);
  double fraction(std::string_view key);  // in [0, 1]
  bool boolean(std::string_view key);
  std::string string(std::string_view key);
  FieldReader object(std::string_view key);
  std::string field(std::string_view key) const;  // "prefix.key", for messages
  const std::string& file() const { return file_; }

  // Throws for the first key of the object that no getter asked for.
  void finish() const;

 private:
  const nlohmann::json& require(std::string_view key);
  double number(std::string_view key);

  const nlohmann::json& object_;
  std::string file_;
  std::string prefix_;
  std::set<std::string, std::less<>> used_;
};

}  // namespace chorus::llm
