// The execution-trace JSON scanner against nlohmann's own parser: the same documents build the same DOM (skipped
// keys' values become null), and malformed documents are refused with the byte offset.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/pytorch/json_scan.hpp"

namespace chorus::pytorch {
namespace {

using json = nlohmann::json;

// Forwards SAX events to nlohmann's DOM builder.
class DomSax : public nlohmann::json_sax<json> {
 public:
  explicit DomSax(json& out) : dom_(out) {}
  bool null() override { return dom_.null(); }
  bool boolean(bool v) override { return dom_.boolean(v); }
  bool number_integer(number_integer_t v) override { return dom_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override { return dom_.number_float(v, s); }
  bool string(string_t& v) override { return dom_.string(v); }
  bool binary(binary_t& v) override { return dom_.binary(v); }
  bool start_object(std::size_t n) override { return dom_.start_object(n); }
  bool key(string_t& v) override { return dom_.key(v); }
  bool end_object() override { return dom_.end_object(); }
  bool start_array(std::size_t n) override { return dom_.start_array(n); }
  bool end_array() override { return dom_.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

json scan(const std::string& text, const std::vector<std::string>& skipped = {}) {
  const auto path = std::filesystem::temp_directory_path() / ("chorus_scan_" + std::to_string(::getpid()));
  std::ofstream(path, std::ios::binary) << text;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  json out;
  DomSax sax(out);
  try {
    scan_json(f, sax, "doc.json", skipped, 64);
  } catch (...) {
    std::fclose(f);
    std::filesystem::remove(path);
    throw;
  }
  std::fclose(f);
  std::filesystem::remove(path);
  return out;
}

TEST(PytorchJsonScan, SameDocumentAsNlohmann) {
  for (const std::string text : {
           R"({"a": [1, -2, 3.5, -0.25e2, 1E3, 18446744073709551615, -9223372036854775808], "b": {"c": null}})",
           R"([true, false, null, "", "x\"y\\z\/\b\f\n\r\t", "\u00e9\u4e2d\ud83d\ude00", {}, [], [[]], 0])",
           " \n\t {\"k\" : \"v\" } \n",
           R"("just a string")",
           "12",
       })
    EXPECT_EQ(scan(text), json::parse(text)) << text;
}

TEST(PytorchJsonScan, SkippedValuesBecomeNull) {
  // Skipped values are not decoded: brackets and quotes inside their strings must not end them early.
  const std::string text =
      R"({"op_schema": "f(x) -> \"]\" [", "keep": [1, 2], "types": [["]", "\\"], {"a": "}"}], "n": 5, "t": true})";
  json want = json::parse(text);
  want["op_schema"] = nullptr;
  want["types"] = nullptr;
  want["n"] = nullptr;
  EXPECT_EQ(scan(text, {"op_schema", "types", "n"}), want);
}

TEST(PytorchJsonScan, MalformedDocumentsAreRefusedWithTheOffset) {
  const std::pair<std::string, std::string> bad[] = {
      {R"({"a": 1,})", "byte 8: invalid JSON: unexpected '}'; expected a key string"},
      {R"({"a": [1, 2})", "byte 11: invalid JSON: unexpected '}'; expected ',' or ']'"},
      {R"({"a": 01})", "leading zero"},
      {R"({"a": "x\q"})", "invalid escape"},
      {"{\"a\": \"x\ny\"}", "control character in a string"},
      {R"({"a": "\ud83d"})", "unpaired UTF-16 surrogate"},
      {R"({"a": tru})", "expected true"},
      {R"({"a": 1} x)", "unexpected content after the document"},
      {R"({"a": "unterminated)", "unterminated string"},
      {R"({"a" 1})", "expected ':'"},
      {R"({"a": -})", "'-' is not a number"},
      {"", "unexpected end of file; expected a value"},
      {std::string(100, '['), "nested deeper than 64 levels"},
  };
  for (const auto& [text, message] : bad) {
    try {
      scan(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << text << "\n" << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("doc.json: byte ", 0), 0u) << e.what();
    }
    json parsed;
    EXPECT_THROW(parsed = json::parse(text), json::parse_error) << text;  // nlohmann agrees
  }
}

TEST(PytorchJsonScan, SkippedValuesStillNeedToEnd) {
  EXPECT_THROW(scan(R"({"op_schema": "open)", {"op_schema"}), Error);
  EXPECT_THROW(scan(R"({"types": [[1, 2])", {"types"}), Error);
  EXPECT_THROW(scan(R"({"types": })", {"types"}), Error);
}

}  // namespace
}  // namespace chorus::pytorch
