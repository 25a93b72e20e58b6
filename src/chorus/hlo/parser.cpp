// Recursive-descent reader of the HLO text format. Newlines are whitespace except that one attribute value may not
// span lines outside a string, so an unbalanced brace is reported on its own line rather than at end of file.
#include "chorus/hlo/parser.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"

namespace chorus::hlo {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// The computations an attribute value names: one (`%body`) or a braced list (`{%branch0, %branch1}`), without the
// `%`s and spaces.
std::vector<std::string> called_names(std::string_view list) {
  if (!list.empty() && list.front() == '{')
    list = list.substr(1, list.size() - (list.back() == '}' ? 2 : 1));
  std::vector<std::string> names;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    std::string_view item = list.substr(0, comma);
    list.remove_prefix(std::min(comma + 1, list.size()));
    while (!item.empty() && (item.front() == ' ' || item.front() == '%'))
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    names.emplace_back(item);
  }
  return names;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : s_(text), file_(file) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < s_.size(); ++i)
      if (s_[i] == '\n')
        line_starts_.push_back(i + 1);
  }

  // One instruction line out of context (an op profile's "HLO op" column): its operands become parameters of the
  // printed shapes and computations it calls become scalar adds (one FLOP per application, the common reducer).
  Module run_line() {
    standalone_ = true;
    Module m;
    m.source = file_;
    m.name = "line";
    Computation c;
    c.name = "(profile row)";  // not an HLO name: a reducer the row names (even %line) is never this computation
    c.is_entry = true;
    skip_ws();
    instruction(c, m);
    skip_ws();
    if (p_ < s_.size())
      fail("the end of the instruction");
    resolve_operands(c);
    c.root = 0;
    m.entry = 0;
    m.index.emplace(c.name, 0);
    m.computations.push_back(std::move(c));
    for (const auto& [key, value] : m.computations[0].instructions[0].attributes) {
      if (!names_computations(key))
        continue;
      for (const std::string& name : called_names(value)) {  // each branch of branch_computations={...} its own
        if (m.index.count(name) != 0)
          continue;
        Computation reducer = parse_module(
                                  "HloModule r\nENTRY %r { %a = f32[] parameter(0)\n %b = f32[] parameter(1)\n"
                                  " ROOT %s = f32[] add(f32[] %a, f32[] %b)\n}\n",
                                  "reducer")
                                  .computations[0];
        reducer.name = name;
        reducer.is_entry = false;
        m.index.emplace(name, static_cast<int>(m.computations.size()));
        m.computations.push_back(std::move(reducer));
      }
    }
    resolve_calls(m);
    reject_call_cycles(m);  // a reducer named %line would be the row's own computation
    return m;
  }

  Module run() {
    Module m;
    m.source = file_;
    skip_ws();
    expect_word("HloModule");
    skip_ws();
    m.name = name();
    skip_header();
    for (skip_ws(); p_ < s_.size(); skip_ws())
      computation(m);
    if (m.computations.empty())
      fail("a computation");
    if (m.entry < 0)
      throw Error(file_, "ENTRY", "no ENTRY computation in the module");
    resolve_calls(m);
    reject_call_cycles(m);
    return m;
  }

 private:
  // HLO's call graph is acyclic; a cycle (a fusion calling itself) would make every cost recursion loop forever.
  void reject_call_cycles(const Module& m) const {
    enum class Mark : uint8_t { kNew, kOpen, kDone };
    std::vector<Mark> mark(m.computations.size(), Mark::kNew);
    // Levels of computations from each one down (itself included): the cost model and the exporter recurse once
    // per level, so the deepest chain is bounded (kMaxCallDepth).
    std::vector<int> depth(m.computations.size(), 1);
    // Iterative depth-first search: (computation, next instruction, next callee) frames.
    struct Frame {
      size_t comp;
      size_t instr;
      size_t callee;
    };
    for (size_t root = 0; root < m.computations.size(); ++root) {
      if (mark[root] != Mark::kNew)
        continue;
      std::vector<Frame> stack{{root, 0, 0}};
      mark[root] = Mark::kOpen;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Computation& c = m.computations[f.comp];
        if (f.instr >= c.instructions.size()) {
          mark[f.comp] = Mark::kDone;
          if (depth[f.comp] > limits::kMaxCallDepth)
            throw Error(file_, fmt::format("line {}", c.line),
                        fmt::format("%{}: calls nested deeper than {} computations (kMaxCallDepth)", c.name,
                                    limits::kMaxCallDepth));
          const size_t done = f.comp;
          stack.pop_back();
          if (!stack.empty())
            depth[stack.back().comp] = std::max(depth[stack.back().comp], depth[done] + 1);
          continue;
        }
        const Instruction& in = c.instructions[f.instr];
        if (f.callee >= in.called.size()) {
          ++f.instr;
          f.callee = 0;
          continue;
        }
        const auto next = static_cast<size_t>(in.called[f.callee++]);
        if (mark[next] == Mark::kOpen)
          throw Error(file_, fmt::format("line {}, column {}", in.line, in.column),
                      fmt::format("%{} calls %{}, which is already being called: a call cycle", in.name,
                                  m.computations[next].name));
        if (mark[next] == Mark::kNew) {
          mark[next] = Mark::kOpen;
          stack.push_back({next, 0, 0});
        } else {
          depth[f.comp] = std::max(depth[f.comp], depth[next] + 1);
        }
      }
    }
  }

  std::pair<int, int> position(size_t offset) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
  }

  std::string where(size_t offset) const {
    const auto [line, column] = position(offset);
    return fmt::format("line {}, column {}", line, column);
  }

  [[noreturn]] void fail(const std::string& expected) const {
    std::string found = "end of file";
    if (p_ < s_.size()) {
      const size_t end = std::min({s_.size(), s_.find('\n', p_), p_ + 20});
      found = fmt::format("'{}'", s_.substr(p_, end - p_));
    }
    throw Error(file_, where(p_), fmt::format("expected {}, found {}", expected, found));
  }

  bool at(char c) const { return p_ < s_.size() && s_[p_] == c; }
  bool at_word(std::string_view w) const {
    return s_.substr(p_, w.size()) == w && (p_ + w.size() >= s_.size() || !is_name_char(s_[p_ + w.size()]));
  }

  // Skips blanks, newlines and /*...*/ comments (the printer's /*index=N*/ markers).
  void skip_ws() {
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++p_;
      } else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '*') {
        const size_t end = s_.find("*/", p_ + 2);
        if (end == std::string_view::npos)
          fail("'*/' closing the comment");
        p_ = end + 2;
      } else {
        return;
      }
    }
  }

  void skip_blanks() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r'))
      ++p_;
  }

  void expect(char c, const char* what) {
    if (!at(c))
      fail(what);
    ++p_;
  }

  void expect_word(std::string_view w) {
    if (!at_word(w))
      fail(fmt::format("'{}'", w));
    p_ += w.size();
  }

  std::string_view identifier(const char* what) {
    const size_t start = p_;
    while (p_ < s_.size() && is_name_char(s_[p_]))
      ++p_;
    if (p_ == start)
      fail(what);
    return s_.substr(start, p_ - start);
  }

  // An instruction or computation name, with or without the leading %.
  std::string name() {
    if (at('%'))
      ++p_;
    return std::string(identifier("a name"));
  }

  void skip_string() {
    const size_t start = p_++;
    while (p_ < s_.size() && s_[p_] != '"')
      p_ += s_[p_] == '\\' ? 2 : 1;
    if (p_ >= s_.size()) {
      p_ = start;
      fail("a closing '\"' for this string");
    }
    ++p_;
  }

  // Skips a bracketed group starting at the opening character, across lines; strings may hold brackets.
  void skip_balanced() {
    const size_t start = p_;
    std::vector<char> closers;
    do {
      if (p_ >= s_.size()) {
        p_ = start;
        fail(fmt::format("a matching '{}' for this '{}'", closers.back(), s_[start]));
      }
      const char c = s_[p_];
      if (c == '"') {
        skip_string();
        continue;
      }
      if (c == '(' || c == '{' || c == '[') {
        closers.push_back(c == '(' ? ')' : c == '{' ? '}' : ']');
      } else if (c == ')' || c == '}' || c == ']') {
        if (c != closers.back())
          fail(fmt::format("'{}'", closers.back()));
        closers.pop_back();
      }
      ++p_;
    } while (!closers.empty());
  }

  // The rest of the HloModule line: its attributes (is_scheduled=, entry_computation_layout={...}).
  void skip_header() {
    while (p_ < s_.size() && s_[p_] != '\n') {
      if (s_[p_] == '{' || s_[p_] == '(' || s_[p_] == '[')
        skip_balanced();
      else if (s_[p_] == '"')
        skip_string();
      else
        ++p_;
    }
  }

  int64_t integer(const char* what) {
    const size_t start = p_;
    bool negative = false;
    if (at('-')) {
      negative = true;
      ++p_;
    }
    int64_t v = 0;
    const size_t digits = p_;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
      if (v > (INT64_MAX - 9) / 10) {
        p_ = start;
        fail(fmt::format("{} that fits in 64 bits", what));
      }
      v = v * 10 + (s_[p_++] - '0');
    }
    if (p_ == digits) {
      p_ = start;
      fail(what);
    }
    return negative ? -v : v;
  }

  Shape shape() {
    Shape sh;
    if (at('(')) {
      if (++tuple_depth_ > kMaxTupleDepth)
        fail(fmt::format("tuple shapes nested at most {} deep", kMaxTupleDepth));
      sh.is_tuple = true;
      const size_t tuple_start = p_;
      ++p_;
      for (skip_ws(); !at(')'); skip_ws()) {
        sh.tuple.push_back(shape());
        skip_ws();
        if (at(','))
          ++p_;
        else if (!at(')'))
          fail("',' or ')' in a tuple shape");
      }
      int64_t bytes = 0;
      for (const Shape& leaf : sh.tuple)
        if (__builtin_add_overflow(bytes, leaf.memory_bytes(), &bytes) || bytes > (int64_t{1} << 50)) {
          p_ = tuple_start;
          fail("a shape of at most 2^50 bytes");
        }
      ++p_;
      --tuple_depth_;
      return sh;
    }
    const size_t start = p_;
    sh.element_type = std::string(identifier("a shape such as f32[8,128]"));
    if (element_size(sh.element_type) < 0) {
      p_ = start;
      fail("a shape with an element type such as f32, bf16, s32 or pred");
    }
    expect('[', "'[' after the element type of a shape");
    for (skip_blanks(); !at(']'); skip_blanks()) {
      if (s_.substr(p_, 2) == "<=")
        p_ += 2;  // a bounded dynamic dimension: its bound is its size
      if (at('?')) {
        ++p_;
        sh.dims.push_back(0);
      } else {
        const int64_t d = integer("a dimension size");
        if (d < 0) {
          fail("a dimension size >= 0");
        }
        sh.dims.push_back(d);
      }
      skip_blanks();
      if (at(','))
        ++p_;
      else if (!at(']'))
        fail("',' or ']' in the dimensions of a shape");
    }
    int64_t bytes = element_size(sh.element_type);
    for (const int64_t d : sh.dims)
      if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > (int64_t{1} << 50)) {
        p_ = start;
        fail("a shape of at most 2^50 bytes");
      }
    ++p_;
    if (at('{'))
      layout(sh, start);
    return sh;
  }

  // A layout, e.g. {1,0:T(8,128)(2,1)S(5)}: its minor_to_major order and first tile give the shape's elements
  // padded to whole tiles; sub-tiles are read and dropped, the other fields (S(n), E(n), D(...)...) skipped.
  void layout(Shape& sh, size_t shape_start) {
    ++p_;  // '{'
    minor_to_major(sh.dims.size());
    tile_.clear();
    if (at(':')) {
      ++p_;
      layout_fields();
    }
    expect('}', "'}' closing the layout");
    if (tile_.empty())
      return;
    const std::optional<int64_t> padded = tiled_elements(sh.dims, order_, tile_);
    int64_t bytes = 0;
    if (!padded || __builtin_mul_overflow(*padded, element_size(sh.element_type), &bytes) ||
        bytes > (int64_t{1} << 50)) {
      p_ = shape_start;
      fail("a shape of at most 2^50 bytes once padded to whole tiles");
    }
    sh.padded_elements = *padded;
  }

  // The dimension numbers before a layout's ':' or '}', into order_: none, or each of the `rank` dimensions once.
  void minor_to_major(size_t rank) {
    std::vector<int64_t>& order = order_;
    order.clear();
    for (skip_blanks(); !at(':') && !at('}'); skip_blanks()) {
      const size_t start = p_;
      const int64_t d = integer("a dimension number in the layout");
      if (d < 0 || static_cast<size_t>(d) >= rank || std::find(order.begin(), order.end(), d) != order.end()) {
        p_ = start;
        fail(fmt::format("each dimension number of the rank-{} shape at most once in its layout", rank));
      }
      order.push_back(d);
      skip_blanks();
      if (at(','))
        ++p_;
      else if (!at(':') && !at('}'))
        fail("',', ':' or '}' in the layout");
    }
    if (!order.empty() && order.size() != rank)
      fail(fmt::format("all {} dimension numbers of the shape in its layout", rank));
  }

  // The fields after a layout's ':' up to its '}': one tiling T(...)(...)..., whose first tile goes to tile_, and
  // other fields, each a name and a bracketed value, skipped.
  void layout_fields() {
    for (skip_blanks(); !at('}'); skip_blanks()) {
      if (at('T') && s_.substr(p_ + 1, 1) == "(") {
        if (!tile_.empty())
          fail("one tiling T(...) in a layout");
        ++p_;
        tile(tile_);
        while (at('('))
          tile(sub_tile_);  // read, checked and dropped
        continue;
      }
      const size_t start = p_;
      while (p_ < s_.size() && !at('(') && !at('}') && !at(')') && !at(',') && !at(':') && s_[p_] != ' ' &&
             s_[p_] != '\n')
        ++p_;
      if (p_ == start || !at('(')) {
        p_ = start;
        fail("a layout field such as T(8,128) or S(1), or '}' closing the layout");
      }
      skip_balanced();
    }
  }

  // One tile, e.g. (8,128) or (*,2), read into t: its sizes from major to minor, -1 for '*' (its dimension folded
  // into the next more minor one, which a last '*' does not have).
  void tile(std::vector<int64_t>& t) {
    expect('(', "'(' opening a tile");
    t.clear();
    for (skip_blanks();; skip_blanks()) {
      const size_t start = p_;
      if (at('*')) {
        ++p_;
        t.push_back(-1);
      } else if (const int64_t v = integer("a tile size"); v >= 1) {
        t.push_back(v);
      } else {
        p_ = start;
        fail("a tile size >= 1");
      }
      skip_blanks();
      if (at(')'))
        break;
      if (!at(','))
        fail("',' or ')' in a tile");
      ++p_;
    }
    if (t.back() == -1)
      fail("a tile whose most minor size is a number, not '*'");
    ++p_;
  }

  void computation(Module& m) {
    Computation c;
    c.line = position(p_).first;
    if (at_word("ENTRY")) {
      p_ += 5;
      skip_ws();
      c.is_entry = true;
    }
    c.name = name();
    skip_ws();
    if (at('('))
      skip_balanced();  // the parameter list; parameter instructions carry the same shapes
    skip_ws();
    if (s_.substr(p_, 2) == "->") {
      p_ += 2;
      skip_ws();
      shape();
      skip_ws();
    }
    const size_t open = p_;
    expect('{', "'{' opening the computation body");
    for (skip_ws(); !at('}'); skip_ws()) {
      if (p_ >= s_.size()) {
        p_ = open;
        fail(fmt::format("a '}}' closing computation %{} before the end of the file", c.name));
      }
      instruction(c, m);
    }
    ++p_;
    resolve_operands(c);
    if (c.root < 0 && !c.instructions.empty())
      c.root = static_cast<int>(c.instructions.size()) - 1;  // the printer marks ROOT only when it is not last
    if (m.index.count(c.name) != 0)
      throw Error(file_, fmt::format("line {}", c.line), fmt::format("computation %{} is defined twice", c.name));
    if (c.is_entry) {
      if (m.entry >= 0)
        throw Error(file_, fmt::format("line {}", c.line), "a second ENTRY computation");
      m.entry = static_cast<int>(m.computations.size());
    }
    m.index.emplace(c.name, static_cast<int>(m.computations.size()));
    m.computations.push_back(std::move(c));
  }

  void operand(Instruction& in) {
    Shape printed;
    if (at('(')) {
      printed = shape();
      skip_ws();
    } else if (!at('%')) {
      const size_t start = p_;
      identifier("an operand");
      if (at('[')) {  // it was the element type of the operand's shape
        p_ = start;
        printed = shape();
        skip_ws();
      } else {
        in.operand_names.emplace_back(s_.substr(start, p_ - start));
        operand_shapes_.emplace_back();
        return;
      }
    }
    operand_shapes_.push_back(std::move(printed));
    if (!at('%') && !(p_ < s_.size() && is_name_char(s_[p_])))
      fail("an operand name such as %add.1");
    in.operand_names.push_back(name());
  }

  void operands(Instruction& in) {
    if (in.opcode == "constant") {
      --p_;
      skip_balanced();  // the literal
      return;
    }
    if (in.opcode == "parameter") {
      skip_ws();
      in.parameter_number = integer("a parameter number");
      skip_ws();
      expect(')', "')' after the parameter number");
      return;
    }
    for (skip_ws(); !at(')'); skip_ws()) {
      operand(in);
      skip_ws();
      if (at(','))
        ++p_;
      else if (!at(')'))
        fail("',' or ')' after an operand");
    }
    ++p_;
  }

  // One attribute value: up to the next ',' or end of line outside brackets and strings.
  std::string_view attribute_value(const std::string& key) {
    const size_t start = p_;
    std::vector<char> closers;
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == '"') {
        skip_string();
        continue;
      }
      if (closers.empty() && (c == ',' || c == '\n' || c == '}' || c == ')'))
        break;
      if (c == '\n') {
        p_ = start;
        fail(fmt::format("a matching '{}' in attribute {} on this line", closers.back(), key));
      }
      if (c == '(' || c == '{' || c == '[') {
        closers.push_back(c == '(' ? ')' : c == '{' ? '}' : ']');
      } else if (c == ')' || c == '}' || c == ']') {
        if (closers.empty())  // only ']' gets here: ')' and '}' end the value when nothing is open
          fail(fmt::format("a '[' opened before this ']' in attribute {}", key));
        if (c != closers.back())
          fail(fmt::format("'{}' in attribute {}", closers.back(), key));
        closers.pop_back();
      }
      ++p_;
    }
    if (!closers.empty()) {
      p_ = start;
      fail(fmt::format("a matching '{}' in attribute {}", closers.back(), key));
    }
    std::string_view v = s_.substr(start, p_ - start);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\r' || v.back() == '\t'))
      v.remove_suffix(1);
    return v;
  }

  void instruction(Computation& c, Module& m) {
    Instruction in;
    operand_shapes_.clear();
    const size_t start = p_;
    std::tie(in.line, in.column) = position(p_);
    if (at_word("ROOT")) {
      p_ += 4;
      skip_ws();
      in.is_root = true;
    }
    in.name = name();
    skip_ws();
    expect('=', "'=' after the instruction name");
    skip_ws();
    in.shape = shape();
    skip_ws();
    in.opcode = std::string(identifier("an opcode"));
    expect('(', "'(' after the opcode");
    operands(in);
    for (skip_blanks(); at(','); skip_blanks()) {
      ++p_;
      skip_blanks();
      const std::string key(identifier("an attribute name"));
      expect('=', "'=' after the attribute name");
      in.attributes.emplace_back(key, std::string(attribute_value(key)));
    }
    if (p_ < s_.size() && s_[p_] != '\n' && s_[p_] != '}' && !(s_[p_] == '/' && s_.substr(p_, 2) == "/*"))
      fail("',' or the end of the instruction");
    if (!is_known_opcode(in.opcode) && warned_.insert(in.opcode).second)
      m.warnings.push_back(
          fmt::format("{}: line {}: unknown opcode '{}' kept with zero cost", file_, in.line, in.opcode));
    if (c.index.count(in.name) != 0) {
      p_ = start;
      fail(fmt::format("a new instruction name (%{} is defined twice)", in.name));
    }
    if (in.is_root)
      c.root = static_cast<int>(c.instructions.size());
    c.index.emplace(in.name, static_cast<int>(c.instructions.size()));
    c.instructions.push_back(std::move(in));
  }

  void resolve_operands(Computation& c) {
    for (size_t i = 0; i < c.instructions.size(); ++i) {
      c.instructions[i].operands.reserve(c.instructions[i].operand_names.size());
      for (size_t k = 0; k < c.instructions[i].operand_names.size(); ++k) {
        const std::string op = c.instructions[i].operand_names[k];
        const Instruction& in = c.instructions[i];
        auto it = c.index.find(op);
        if (it == c.index.end() && standalone_) {
          Instruction param;  // stands for an operand defined outside the line, with the shape printed for it
          param.name = op;
          param.opcode = "parameter";
          param.shape = operand_shapes_[k];
          it = c.index.emplace(op, static_cast<int>(c.instructions.size())).first;
          c.instructions.push_back(std::move(param));
        }
        if (it == c.index.end())
          throw Error(file_, fmt::format("line {}, column {}", in.line, in.column),
                      fmt::format("operand %{} of %{} is not an instruction of computation %{}", op, in.name, c.name));
        c.instructions[i].operands.push_back(it->second);
      }
    }
  }

  static bool names_computations(std::string_view key) {
    static constexpr std::array<std::string_view, 9> kKeys = {
        "calls",  "to_apply", "condition", "body", "true_computation", "false_computation", "branch_computations",
        "select", "scatter"};
    return std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end();
  }

  void resolve_calls(Module& m) const {
    for (Computation& c : m.computations) {
      for (Instruction& in : c.instructions) {
        for (const auto& [key, value] : in.attributes) {
          if (!names_computations(key))
            continue;
          for (const std::string& item : called_names(value)) {
            const auto it = m.index.find(item);
            if (it == m.index.end())
              throw Error(file_, fmt::format("line {}, column {}", in.line, in.column),
                          fmt::format("{}=%{} of %{} is not a computation of the module", key, item, in.name));
            in.called.push_back(it->second);
          }
        }
      }
    }
    for (const Computation& c : m.computations)
      for (const Instruction& in : c.instructions)
        if (in.opcode == "fusion")
          for (const int k : in.called)
            m.computations[static_cast<size_t>(k)].is_fused = true;
  }

  std::string_view s_;
  size_t p_ = 0;
  const std::string& file_;
  std::vector<size_t> line_starts_;
  std::unordered_set<std::string> warned_;
  std::vector<Shape> operand_shapes_;        // as printed with the operands of the instruction being read
  std::vector<int64_t> order_;               // the minor_to_major order of the layout being read
  std::vector<int64_t> tile_;                // its first tile
  std::vector<int64_t> sub_tile_;            // a sub-tile of it, read and dropped
  static constexpr int kMaxTupleDepth = 64;  // bounds the recursion on hostile input
  int tuple_depth_ = 0;
  bool standalone_ = false;
};

}  // namespace

bool is_known_opcode(std::string_view opcode) {
  static const std::unordered_set<std::string_view> kOpcodes = {"abs",
                                                                "add",
                                                                "add-dependency",
                                                                "after-all",
                                                                "all-gather",
                                                                "all-gather-done",
                                                                "all-gather-start",
                                                                "all-reduce",
                                                                "all-reduce-done",
                                                                "all-reduce-start",
                                                                "all-to-all",
                                                                "and",
                                                                "async-done",
                                                                "async-start",
                                                                "async-update",
                                                                "atan2",
                                                                "batch-norm-grad",
                                                                "batch-norm-inference",
                                                                "batch-norm-training",
                                                                "bitcast",
                                                                "bitcast-convert",
                                                                "broadcast",
                                                                "call",
                                                                "cbrt",
                                                                "ceil",
                                                                "cholesky",
                                                                "clamp",
                                                                "clz",
                                                                "collective-broadcast",
                                                                "collective-permute",
                                                                "collective-permute-done",
                                                                "collective-permute-start",
                                                                "compare",
                                                                "complex",
                                                                "concatenate",
                                                                "conditional",
                                                                "constant",
                                                                "convert",
                                                                "convolution",
                                                                "copy",
                                                                "copy-done",
                                                                "copy-start",
                                                                "cosine",
                                                                "count-leading-zeros",
                                                                "custom-call",
                                                                "divide",
                                                                "domain",
                                                                "dot",
                                                                "dynamic-reshape",
                                                                "dynamic-slice",
                                                                "dynamic-update-slice",
                                                                "erf",
                                                                "exponential",
                                                                "exponential-minus-one",
                                                                "fft",
                                                                "floor",
                                                                "fusion",
                                                                "gather",
                                                                "get-dimension-size",
                                                                "get-tuple-element",
                                                                "imag",
                                                                "infeed",
                                                                "iota",
                                                                "is-finite",
                                                                "log",
                                                                "log-plus-one",
                                                                "logistic",
                                                                "map",
                                                                "maximum",
                                                                "minimum",
                                                                "multiply",
                                                                "negate",
                                                                "not",
                                                                "optimization-barrier",
                                                                "or",
                                                                "outfeed",
                                                                "pad",
                                                                "parameter",
                                                                "partition-id",
                                                                "popcnt",
                                                                "power",
                                                                "real",
                                                                "recv",
                                                                "recv-done",
                                                                "reduce",
                                                                "reduce-precision",
                                                                "reduce-scatter",
                                                                "reduce-window",
                                                                "remainder",
                                                                "replica-id",
                                                                "reshape",
                                                                "reverse",
                                                                "rng",
                                                                "rng-bit-generator",
                                                                "rng-get-and-update-state",
                                                                "round-nearest-afz",
                                                                "round-nearest-even",
                                                                "rsqrt",
                                                                "scatter",
                                                                "select",
                                                                "select-and-scatter",
                                                                "send",
                                                                "send-done",
                                                                "set-dimension-size",
                                                                "shift-left",
                                                                "shift-right-arithmetic",
                                                                "shift-right-logical",
                                                                "sign",
                                                                "sine",
                                                                "slice",
                                                                "sort",
                                                                "sqrt",
                                                                "stochastic-convert",
                                                                "subtract",
                                                                "tan",
                                                                "tanh",
                                                                "top-k",
                                                                "transpose",
                                                                "triangular-solve",
                                                                "tuple",
                                                                "while",
                                                                "xor"};
  return kOpcodes.count(opcode) != 0;
}

Module parse_module(std::string_view text, const std::string& display_name) {
  return Parser(text, display_name).run();
}

Module parse_instruction_line(std::string_view line, const std::string& display_name) {
  return Parser(line, display_name).run_line();
}

Module read_module(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path, "", "is a directory; expected an HLO text file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path, "", "cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  return parse_module(text, path);
}

}  // namespace chorus::hlo
