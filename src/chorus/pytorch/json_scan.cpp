// Streaming JSON scanner driving a SAX handler (json_scan.hpp).
#include "chorus/pytorch/json_scan.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::pytorch {
namespace {

class Scanner {
 public:
  Scanner(std::FILE* f, nlohmann::json_sax<nlohmann::json>& sax, const std::string& source,
          const std::vector<std::string>& skipped, size_t max_depth)
      : f_(f), sax_(sax), source_(source), skipped_(skipped), max_depth_(max_depth), buffer_(size_t{1} << 20) {
    refill();
  }

  void run() {
    value();
    skip_ws();
    if (!eof())
      fail("unexpected content after the document");
  }

 private:
  // --- bytes -------------------------------------------------------------------------------------------------
  bool eof() const { return at_ == end_; }
  char peek() const { return *at_; }
  void refill() {
    consumed_ += static_cast<size_t>(end_ - begin_);
    const size_t n = std::fread(buffer_.data(), 1, buffer_.size(), f_);
    begin_ = at_ = buffer_.data();
    end_ = begin_ + n;
  }
  char next() {
    const char c = *at_;
    if (++at_ == end_)
      refill();
    return c;
  }
  size_t offset() const { return consumed_ + static_cast<size_t>(at_ - begin_); }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(source_, fmt::format("byte {}", offset()), fmt::format("invalid JSON: {}", what));
  }
  [[noreturn]] void fail_at_char(const char* expected) const {
    if (eof())
      fail(fmt::format("unexpected end of file; expected {}", expected));
    fail(fmt::format("unexpected '{}'; expected {}", peek(), expected));
  }

  void skip_ws() {
    while (!eof() && (peek() == ' ' || peek() == '\n' || peek() == '\r' || peek() == '\t'))
      next();
  }
  void expect(char c, const char* what) {
    skip_ws();
    if (eof() || peek() != c)
      fail_at_char(what);
    next();
  }

  // --- values ------------------------------------------------------------------------------------------------
  // Iterative over containers: a stack of '{' / '[' instead of recursion, so nesting costs no C++ stack.
  void value() {
    std::vector<char> stack;
    bool want_value = true;
    while (true) {
      skip_ws();
      if (want_value && skip_after_) {
        skip_after_ = false;  // a skipped key's value, already consumed
      } else if (want_value) {
        if (eof())
          fail_at_char("a value");
        const char c = peek();
        if (c == '{' || c == '[') {
          if (stack.size() >= max_depth_)
            fail(fmt::format("nested deeper than {} levels", max_depth_));
          next();
          stack.push_back(c);
          c == '{' ? sax_.start_object(static_cast<size_t>(-1)) : sax_.start_array(static_cast<size_t>(-1));
          skip_ws();
          if (!eof() && peek() == (c == '{' ? '}' : ']')) {
            close(stack);
          } else if (c == '{') {
            member_key();
            continue;
          } else {
            continue;
          }
        } else {
          scalar();
        }
      }
      // After a value: done at the top, else ',' or the container's close.
      skip_ws();
      if (stack.empty())
        return;
      if (eof())
        fail_at_char(stack.back() == '{' ? "',' or '}'" : "',' or ']'");
      const char c = peek();
      if (c == ',') {
        next();
        if (stack.back() == '{') {
          skip_ws();
          member_key();
        }
        want_value = true;
      } else if (c == (stack.back() == '{' ? '}' : ']')) {
        close(stack);
        want_value = false;
      } else {
        fail_at_char(stack.back() == '{' ? "',' or '}'" : "',' or ']'");
      }
    }
  }

  void close(std::vector<char>& stack) {
    next();
    stack.back() == '{' ? sax_.end_object() : sax_.end_array();
    stack.pop_back();
  }

  // A key, its ':', and, for a skipped key, its whole value (then the caller sees "after a value").
  void member_key() {
    if (eof() || peek() != '"')
      fail_at_char("a key string");
    string(text_);
    sax_.key(text_);
    expect(':', "':'");
    if (std::find(skipped_.begin(), skipped_.end(), text_) != skipped_.end()) {
      skip_value();
      sax_.null();
      skip_after_ = true;
    }
  }

  void scalar() {
    const char c = peek();
    if (c == '"') {
      string(text_);
      sax_.string(text_);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      number();
    } else if (c == 't') {
      literal("true");
      sax_.boolean(true);
    } else if (c == 'f') {
      literal("false");
      sax_.boolean(false);
    } else if (c == 'n') {
      literal("null");
      sax_.null();
    } else {
      fail_at_char("a value");
    }
  }

  void literal(const char* word) {
    for (const char* w = word; *w != '\0'; ++w) {
      if (eof() || peek() != *w)
        fail_at_char(word);
      next();
    }
  }

  void number() {
    num_.clear();
    bool integer = true;
    while (!eof()) {
      const char c = peek();
      if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
        num_.push_back(c);
      } else if (c == '.' || c == 'e' || c == 'E') {
        num_.push_back(c);
        integer = false;
      } else {
        break;
      }
      next();
    }
    const char* first = num_.data();
    const char* last = first + num_.size();
    const size_t digits = num_[0] == '-' ? 1 : 0;
    if (num_.size() > digits + 1 && num_[digits] == '0' && num_[digits + 1] >= '0' && num_[digits + 1] <= '9')
      fail(fmt::format("number '{}' has a leading zero", num_));
    if (integer) {
      int64_t i = 0;
      if (const auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) {
        sax_.number_integer(i);
        return;
      }
      uint64_t u = 0;
      if (const auto r = std::from_chars(first, last, u); r.ec == std::errc() && r.ptr == last) {
        sax_.number_unsigned(u);
        return;
      }
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ptr != last || num_.back() == '.' || num_[0] == '.' || r.ec == std::errc::invalid_argument)
      fail(fmt::format("'{}' is not a number", num_));
    sax_.number_float(d, num_);
  }

  // A string into `out` (escapes decoded), the opening quote at the cursor.
  void string(std::string& out) {
    out.clear();
    next();
    while (true) {
      if (eof())
        fail("unterminated string");
      // Copy the run of plain bytes in this block at once.
      const char* run = at_;
      while (run != end_ && *run != '"' && *run != '\\' && static_cast<unsigned char>(*run) >= 0x20)
        ++run;
      out.append(at_, run);
      at_ = run;
      if (at_ == end_) {
        refill();
        continue;
      }
      const char c = next();
      if (c == '"')
        return;
      if (c != '\\')
        fail("control character in a string");
      escape(out);
    }
  }

  void escape(std::string& out) {
    if (eof())
      fail("unterminated string");
    const char e = next();
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        return;
      case 'b':
        out.push_back('\b');
        return;
      case 'f':
        out.push_back('\f');
        return;
      case 'n':
        out.push_back('\n');
        return;
      case 'r':
        out.push_back('\r');
        return;
      case 't':
        out.push_back('\t');
        return;
      case 'u':
        utf8(out, code_point());
        return;
      default:
        fail(fmt::format("invalid escape '\\{}'", e));
    }
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      if (eof())
        fail("unterminated \\u escape");
      const char c = next();
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        fail("invalid \\u escape");
    }
    return v;
  }

  uint32_t code_point() {
    const uint32_t hi = hex4();
    if (hi < 0xD800 || hi > 0xDFFF)
      return hi;
    if (hi > 0xDBFF || eof() || next() != '\\' || eof() || next() != 'u')
      fail("unpaired UTF-16 surrogate");
    const uint32_t lo = hex4();
    if (lo < 0xDC00 || lo > 0xDFFF)
      fail("unpaired UTF-16 surrogate");
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // A skipped value: strings are walked to their closing quote, brackets balanced; nothing is decoded.
  void skip_value() {
    skip_ws();
    if (eof())
      fail_at_char("a value");
    const char c = peek();
    if (c == '"') {
      skip_string();
      return;
    }
    if (c != '[' && c != '{') {  // a number or literal: up to the next delimiter
      size_t n = 0;
      for (; !eof() && std::string_view(",}] \n\r\t").find(peek()) == std::string_view::npos; ++n)
        next();
      if (n == 0)
        fail_at_char("a value");
      return;
    }
    next();
    for (size_t depth = 1; depth > 0;) {
      if (eof())
        fail("unexpected end of file in a value");
      const char d = peek();
      if (d == '"') {
        skip_string();
        continue;
      }
      if (d == '[' || d == '{') {
        if (++depth > max_depth_)
          fail(fmt::format("nested deeper than {} levels", max_depth_));
      } else if (d == ']' || d == '}') {
        --depth;
      }
      next();
    }
  }

  void skip_string() {
    next();
    while (true) {
      if (eof())
        fail("unterminated string");
      const char* run = at_;
      while (run != end_ && *run != '"' && *run != '\\')
        ++run;
      at_ = run;
      if (at_ == end_) {
        refill();
        continue;
      }
      if (next() == '"')
        return;
      if (eof())
        fail("unterminated string");
      next();  // the escaped character
    }
  }

  std::FILE* f_;
  nlohmann::json_sax<nlohmann::json>& sax_;
  const std::string& source_;
  const std::vector<std::string>& skipped_;
  size_t max_depth_;
  std::vector<char> buffer_;
  const char* begin_ = nullptr;
  const char* at_ = nullptr;
  const char* end_ = nullptr;
  size_t consumed_ = 0;
  std::string text_, num_;
  bool skip_after_ = false;
};

}  // namespace

void scan_json(std::FILE* file, nlohmann::json_sax<nlohmann::json>& sax, const std::string& source,
               const std::vector<std::string>& skipped, size_t max_depth) {
  Scanner(file, sax, source, skipped, max_depth).run();
}

}  // namespace chorus::pytorch
