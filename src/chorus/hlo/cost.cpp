// HloCostAnalysis-style FLOP and byte counting (see cost.hpp), with convolutions counted exactly over their windows.
#include "chorus/hlo/cost.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::hlo {
namespace {

// The integers of a list such as "{1,2}" or "3x3" or "0_1x1_0" (any non-digit separates).
std::vector<int64_t> integers(std::string_view text) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < text.size();) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    const bool minus = text[i] == '-' && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9';
    if (digit || minus) {
      int64_t v = 0;
      const auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
      if (r.ec != std::errc()) {  // too large for 64 bits: skipped, as any other non-number (from_chars ends past it)
        i = static_cast<size_t>(r.ptr - text.data());
        continue;
      }
      out.push_back(v);
      i = static_cast<size_t>(r.ptr - text.data());
    } else {
      ++i;
    }
  }
  return out;
}

// One field of a window attribute ("size", "stride", "pad", "lhs_dilate", "rhs_dilate"), e.g. "3x3".
std::string_view window_field(std::string_view window, std::string_view key) {
  size_t pos = 0;
  while ((pos = window.find(key, pos)) != std::string_view::npos) {
    const bool starts = pos == 0 || window[pos - 1] == ' ' || window[pos - 1] == '{';
    if (starts && pos + key.size() < window.size() && window[pos + key.size()] == '=') {
      const size_t begin = pos + key.size() + 1;
      const size_t end = window.find_first_of(" }", begin);
      return window.substr(begin, (end == std::string_view::npos ? window.size() : end) - begin);
    }
    pos += key.size();
  }
  return {};
}

// How many (output position, kernel position) pairs of one spatial dimension read a real input element, not
// padding or a hole of lhs dilation (XLA's valid position count).
int64_t valid_positions(int64_t in, int64_t kernel, int64_t out, int64_t stride, int64_t pad_low, int64_t lhs_dilate,
                        int64_t rhs_dilate) {
  const int64_t dilated_in = in > 0 ? (in - 1) * lhs_dilate + 1 : 0;
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t pos = o * stride + k * rhs_dilate - pad_low;
      if (pos >= 0 && pos < dilated_in && pos % lhs_dilate == 0)
        ++count;
    }
  }
  return count;
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (const int64_t d : dims)
    p *= d;
  return p;
}

int64_t log2_ceiling(int64_t n) {
  int64_t r = 0;
  while ((int64_t{1} << r) < n)
    ++r;
  return r;
}

}  // namespace

bool is_transcendental(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {"exponential", "exponential-minus-one",
                                                       "log",         "log-plus-one",
                                                       "logistic",    "power",
                                                       "sqrt",        "cbrt",
                                                       "rsqrt",       "tanh",
                                                       "sine",        "cosine",
                                                       "tan",         "erf",
                                                       "atan2"};
  return kOps.count(op) != 0;
}

bool is_elementwise(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {"abs",
                                                       "add",
                                                       "and",
                                                       "ceil",
                                                       "clamp",
                                                       "clz",
                                                       "compare",
                                                       "complex",
                                                       "convert",
                                                       "count-leading-zeros",
                                                       "divide",
                                                       "floor",
                                                       "imag",
                                                       "is-finite",
                                                       "maximum",
                                                       "minimum",
                                                       "multiply",
                                                       "negate",
                                                       "not",
                                                       "or",
                                                       "popcnt",
                                                       "real",
                                                       "reduce-precision",
                                                       "remainder",
                                                       "round-nearest-afz",
                                                       "round-nearest-even",
                                                       "select",
                                                       "shift-left",
                                                       "shift-right-arithmetic",
                                                       "shift-right-logical",
                                                       "sign",
                                                       "stochastic-convert",
                                                       "subtract",
                                                       "xor"};
  return kOps.count(op) != 0 || is_transcendental(op);
}

bool is_free(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {"parameter",
                                                       "constant",
                                                       "get-tuple-element",
                                                       "tuple",
                                                       "bitcast",
                                                       "after-all",
                                                       "while",
                                                       "call",
                                                       "conditional",
                                                       "add-dependency",
                                                       "domain",
                                                       "optimization-barrier",
                                                       "partition-id",
                                                       "replica-id",
                                                       "all-reduce-done",
                                                       "all-gather-done",
                                                       "collective-permute-done",
                                                       "async-done",
                                                       "async-update",
                                                       "copy-done",
                                                       "send-done",
                                                       "recv-done"};
  return kOps.count(op) != 0;
}

bool is_collective(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {"all-reduce",
                                                       "all-reduce-start",
                                                       "all-gather",
                                                       "all-gather-start",
                                                       "reduce-scatter",
                                                       "all-to-all",
                                                       "collective-permute",
                                                       "collective-permute-start",
                                                       "collective-broadcast",
                                                       "send",
                                                       "recv"};
  return kOps.count(op) != 0;
}

CostModel::CostModel(const Module& module)
    : module_(module), flops_(module.computations.size(), -1), transcendentals_(module.computations.size(), -1) {}

double CostModel::computation_flops(int k) const {
  auto& memo = flops_;
  auto& memo_t = transcendentals_;
  const auto ku = static_cast<size_t>(k);
  if (memo[ku] < 0) {
    double f = 0;
    double t = 0;
    const Computation& c = module_.computations[ku];
    for (const Instruction& in : c.instructions) {
      const OpCost oc = cost(c, in);
      f += oc.flops;
      t += oc.transcendentals;
    }
    memo[ku] = f;
    memo_t[ku] = t;
  }
  return memo[ku];
}

double CostModel::computation_transcendentals(int k) const {
  computation_flops(k);
  return transcendentals_[static_cast<size_t>(k)];
}

const Shape& CostModel::operand_shape(const Computation& c, const Instruction& in, size_t i) const {
  if (i >= in.operands.size())
    throw Error(module_.source, fmt::format("line {}, column {}", in.line, in.column),
                fmt::format("%{} ({}) needs operand {}", in.name, in.opcode, i));
  return c.instructions[static_cast<size_t>(in.operands[i])].shape;
}

// A reducer or comparator that the text does not name (an op profile prints some ops without select=) counts as
// one FLOP per application, the scalar add or compare it nearly always is.
double CostModel::called_flops(const Instruction& in, size_t which) const {
  return which < in.called.size() ? computation_flops(in.called[which]) : 1;
}

double CostModel::dot_flops(const Computation& c, const Instruction& in) const {
  const Shape& lhs = operand_shape(c, in, 0);
  int64_t contracted = 1;
  for (const int64_t d : integers(in.attribute("lhs_contracting_dims"))) {
    if (d < 0 || static_cast<size_t>(d) >= lhs.dims.size())
      throw Error(module_.source, fmt::format("line {}, column {}", in.line, in.column),
                  fmt::format("lhs_contracting_dims of %{} names dimension {} of a rank-{} operand", in.name, d,
                              lhs.dims.size()));
    contracted *= lhs.dims[static_cast<size_t>(d)];
  }
  return 2.0 * static_cast<double>(in.shape.elements()) * static_cast<double>(contracted);
}

double CostModel::convolution_flops(const Computation& c, const Instruction& in) const {
  const Shape& lhs = operand_shape(c, in, 0);
  const Shape& rhs = operand_shape(c, in, 1);
  const std::string_view labels = in.attribute("dim_labels");
  const size_t underscore = labels.find('_');
  const size_t arrow = labels.find("->");
  auto bad = [&](const std::string& what) {
    return Error(module_.source, fmt::format("line {}, column {}", in.line, in.column),
                 fmt::format("dim_labels of %{} {}", in.name, what));
  };
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
    throw bad(fmt::format("is '{}'; expected the form b01f_01io->b01f", labels));
  const std::string_view lhs_l = labels.substr(0, underscore);
  const std::string_view rhs_l = labels.substr(underscore + 1, arrow - underscore - 1);
  const std::string_view out_l = labels.substr(arrow + 2);
  if (lhs_l.size() != lhs.dims.size() || rhs_l.size() != rhs.dims.size() || out_l.size() != in.shape.dims.size())
    throw bad(fmt::format("'{}' do not match the operand and result ranks", labels));
  auto dim = [](std::string_view l, const Shape& s, char label) -> int64_t {
    const size_t pos = l.find(label);
    return pos == std::string_view::npos ? 1 : s.dims[pos];
  };
  const double input_features = static_cast<double>(dim(lhs_l, lhs, 'f'));
  const double output_features = static_cast<double>(dim(out_l, in.shape, 'f'));
  const double batch = static_cast<double>(dim(lhs_l, lhs, 'b'));
  const auto groups = integers(in.attribute("feature_group_count"));
  const auto batch_groups = integers(in.attribute("batch_group_count"));
  const double feature_groups = groups.empty() ? 1.0 : static_cast<double>(std::max<int64_t>(1, groups[0]));
  const double batch_group = batch_groups.empty() ? 1.0 : static_cast<double>(std::max<int64_t>(1, batch_groups[0]));

  const std::string_view window = in.attribute("window");
  const auto sizes = integers(window_field(window, "size"));
  const auto strides = integers(window_field(window, "stride"));
  const auto pads = integers(window_field(window, "pad"));
  const auto lhs_dilate = integers(window_field(window, "lhs_dilate"));
  const auto rhs_dilate = integers(window_field(window, "rhs_dilate"));
  double positions = 1;
  for (size_t s = 0; s < 10; ++s) {
    const char label = static_cast<char>('0' + s);
    if (lhs_l.find(label) == std::string_view::npos)
      break;
    const int64_t kernel = s < sizes.size() ? sizes[s] : dim(rhs_l, rhs, label);
    positions *= static_cast<double>(
        valid_positions(dim(lhs_l, lhs, label), kernel, dim(out_l, in.shape, label),
                        s < strides.size() ? strides[s] : 1, 2 * s < pads.size() ? pads[2 * s] : 0,
                        s < lhs_dilate.size() ? lhs_dilate[s] : 1, s < rhs_dilate.size() ? rhs_dilate[s] : 1));
  }
  return 2.0 * (input_features / feature_groups) * output_features * (batch / batch_group) * positions;
}

OpCost CostModel::cost(const Computation& c, const Instruction& in) const {
  OpCost oc;
  const std::string& op = in.opcode;
  const double out = static_cast<double>(in.shape.is_tuple ? in.shape.tuple.empty() ? 0 : in.shape.tuple[0].elements()
                                                           : in.shape.elements());
  if (is_transcendental(op)) {
    oc.transcendentals = out;
  } else if (is_elementwise(op)) {
    oc.flops = out;
  } else if (op == "dot") {
    oc.flops = dot_flops(c, in);
  } else if (op == "convolution") {
    oc.flops = convolution_flops(c, in);
  } else if (op == "fusion" || op == "call" || op == "async-start" || op == "conditional") {
    for (size_t i = 0; i < in.called.size(); ++i) {
      oc.flops += called_flops(in, i);
      oc.transcendentals += computation_transcendentals(in.called[i]);
    }
  } else if (op == "while") {
    oc.flops = in.called.size() == 2 ? called_flops(in, 0) + called_flops(in, 1) : 0;
  } else if (op == "reduce") {
    const double input = static_cast<double>(operand_shape(c, in, 0).elements());
    oc.flops = std::max(0.0, input - out) * called_flops(in, 0);
  } else if (op == "reduce-window") {
    const double window = static_cast<double>(product(integers(window_field(in.attribute("window"), "size"))));
    oc.flops = out * std::max(0.0, window - 1) * called_flops(in, 0);
  } else if (op == "select-and-scatter") {
    const double window = static_cast<double>(product(integers(window_field(in.attribute("window"), "size"))));
    oc.flops = static_cast<double>(operand_shape(c, in, 1).elements()) * window * called_flops(in, 0);
  } else if (op == "all-reduce" || op == "all-reduce-start" || op == "reduce-scatter") {
    double elements = 0;
    for (size_t i = 0; i < in.operands.size(); ++i)
      elements += static_cast<double>(operand_shape(c, in, i).elements());
    oc.flops = elements * called_flops(in, 0);
  } else if (op == "sort") {
    const Shape& keys = operand_shape(c, in, 0);
    const int64_t n = keys.elements();
    oc.flops = static_cast<double>(n * log2_ceiling(n));
  } else if (op == "map" || op == "scatter") {
    const double elements =
        op == "map" ? out : static_cast<double>(operand_shape(c, in, in.operands.size() - 1).elements());
    oc.flops = elements * called_flops(in, 0);
  }
  if (!is_free(op)) {
    double bytes = static_cast<double>(in.shape.bytes());
    for (const int k : in.operands)
      bytes += static_cast<double>(c.instructions[static_cast<size_t>(k)].shape.bytes());
    oc.bytes = bytes;
  }
  return oc;
}

}  // namespace chorus::hlo
