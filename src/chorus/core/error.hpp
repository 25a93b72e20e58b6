// chorus::Error: a user or input error, carrying where it came from (file, field) and what was wrong.
//
// The library throws it; the CLI catches it, prints `error: <what()>` on one line and exits with status 2.
// Messages follow LLVM style: lower-case, with the offending value, e.g.
//   throw Error("net.yml", "bandwidth[1]", "is 0 GB/s; must be > 0");
//   what() == "net.yml: bandwidth[1]: is 0 GB/s; must be > 0"
// A value passed as an argument of a call (not read from a file) is named by its keyword, as Python spells it, and
// marked so that each front end names it its own way (the CLI: "active_chunks" -> "--active-chunks"):
//   throw Error("", Argument{"active_chunks"}, "is 0; must be 1 to 1000000");
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace chorus {

// The keyword of a call's argument: lower case, words joined by '_'; alternatives joined by '/'
// ("network/topology").
struct Argument {
  std::string keyword;
};

// Where a value came from: a key inside the source file ("bandwidth[1]"), or an Argument.
struct Field {
  Field(std::string key) : name(std::move(key)) {}  // NOLINT: implicit, a file key is the common case
  Field(const char* key) : name(key) {}             // NOLINT
  Field(Argument argument) : name(std::move(argument.keyword)), argument(true) {}  // NOLINT
  std::string name;
  bool argument = false;
};

class Error : public std::runtime_error {
 public:
  Error(std::string source, Field field, std::string message);
  // True when field() is an Argument's keyword rather than a key inside the source file.
  bool names_argument() const { return argument_; }
  const std::string& source() const { return source_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string source_;
  std::string field_;
  std::string message_;
  bool argument_ = false;
};

}  // namespace chorus
