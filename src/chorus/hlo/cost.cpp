// HloCostAnalysis-style FLOP and byte counting (see cost.hpp), with convolutions counted exactly over their windows.
#include "chorus/hlo/cost.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <system_error>
#include <tuple>
#include <unordered_set>
#include <utility>

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

__extension__ typedef __int128 Int128;  // exact products of 64-bit positions

// How many x in [0, n) put x * coef + c in [0, limit) on a multiple of `every` (coef, every >= 1): the positions of
// one side of a window that meet a real input element for a fixed position of the other side, in closed form.
int64_t count_hits(int64_t n, int64_t coef, Int128 c, Int128 limit, int64_t every) {
  auto floor_div = [](Int128 a, Int128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const Int128 lo = std::max<Int128>(0, -floor_div(c, coef));  // ceil(-c / coef)
  const Int128 hi = std::min<Int128>(n - 1, floor_div(limit - 1 - c, coef));
  if (hi < lo)
    return 0;
  if (every == 1)
    return static_cast<int64_t>(hi - lo + 1);
  // x * coef = -c (mod every): solvable when gcd(coef, every) divides c; then x = x0 (mod every / gcd).
  const int64_t g = std::gcd(coef, every);
  const Int128 minus_c = ((-c) % every + every) % every;
  if (minus_c % g != 0)
    return 0;
  const int64_t m = every / g;
  int64_t x0 = 0;
  if (m > 1) {
    // The inverse of coef / g modulo m by the extended Euclidean algorithm.
    int64_t r0 = static_cast<int64_t>((coef / g) % m), r1 = m;
    Int128 s0 = 1, s1 = 0;
    while (r1 != 0) {
      const int64_t q = r0 / r1;
      std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
      std::tie(s0, s1) = std::make_pair(s1, s0 - q * s1);
    }
    const Int128 inverse = (s0 % m + m) % m;
    x0 = static_cast<int64_t>((minus_c / g % m) * inverse % m);
  }
  const Int128 first = lo + ((x0 - lo) % m + m) % m;
  return first > hi ? 0 : static_cast<int64_t>((hi - first) / m + 1);
}

// How many (output position, kernel position) pairs of one spatial dimension read a real input element, not
// padding or a hole of lhs dilation (XLA's valid position count): the shorter side is walked, the other counted.
double valid_positions(int64_t in, int64_t kernel, int64_t out, int64_t stride, int64_t pad_low, int64_t lhs_dilate,
                       int64_t rhs_dilate) {
  const Int128 dilated_in = in > 0 ? Int128{in - 1} * lhs_dilate + 1 : 0;
  double count = 0;  // up to 2^26 x 2^51: a double, as the FLOP count it multiplies
  if (kernel <= out) {
    for (int64_t k = 0; k < kernel; ++k)
      count += static_cast<double>(count_hits(out, stride, Int128{k} * rhs_dilate - pad_low, dilated_in, lhs_dilate));
  } else {
    for (int64_t o = 0; o < out; ++o)
      count +=
          static_cast<double>(count_hits(kernel, rhs_dilate, Int128{o} * stride - pad_low, dilated_in, lhs_dilate));
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
  for (const auto& [key, values] :
       {std::pair{"feature_group_count", &groups}, std::pair{"batch_group_count", &batch_groups}})
    if (!values->empty() && (*values)[0] < 1)
      throw Error(module_.source, fmt::format("line {}, column {}", in.line, in.column),
                  fmt::format("{} {} of %{}; must be >= 1", key, (*values)[0], in.name));
  const double feature_groups = groups.empty() ? 1.0 : static_cast<double>(groups[0]);
  const double batch_group = batch_groups.empty() ? 1.0 : static_cast<double>(batch_groups[0]);

  const std::string_view window = in.attribute("window");
  const auto sizes = integers(window_field(window, "size"));
  const auto strides = integers(window_field(window, "stride"));
  const auto pads = integers(window_field(window, "pad"));
  const auto lhs_dilate = integers(window_field(window, "lhs_dilate"));
  const auto rhs_dilate = integers(window_field(window, "rhs_dilate"));
  auto bad_window = [&](const std::string& what) {
    return Error(module_.source, fmt::format("line {}, column {}", in.line, in.column),
                 fmt::format("window of %{}: {}", in.name, what));
  };
  // Strides and dilations from 1 to 2^31, pads within +-2^40: beyond them no real window lies, and the position
  // arithmetic below stays far inside 128 bits.
  constexpr int64_t kMaxStep = int64_t{1} << 31;
  constexpr int64_t kMaxPad = int64_t{1} << 40;
  for (const auto& [key, values] : {std::pair{"size", &sizes}, std::pair{"stride", &strides},
                                    std::pair{"lhs_dilate", &lhs_dilate}, std::pair{"rhs_dilate", &rhs_dilate}})
    for (const int64_t v : *values)  // a size past the operand is refused below, naming the operand's dimension
      if (v < 1 || (v > kMaxStep && std::string_view(key) != "size"))
        throw bad_window(fmt::format("{} {}; must be >= 1{}", key, v, v < 1 ? "" : " and at most 2^31"));
  for (const int64_t v : pads)
    if (v < -kMaxPad || v > kMaxPad)
      throw bad_window(fmt::format("pad {}; must lie within +-2^40", v));
  double positions = 1;
  for (size_t s = 0; s < 10; ++s) {
    const char label = static_cast<char>('0' + s);
    if (lhs_l.find(label) == std::string_view::npos)
      break;
    const int64_t kernel = s < sizes.size() ? sizes[s] : dim(rhs_l, rhs, label);
    const int64_t in_dim = dim(lhs_l, lhs, label);
    const int64_t ld = s < lhs_dilate.size() ? lhs_dilate[s] : 1;
    const int64_t rd = s < rhs_dilate.size() ? rhs_dilate[s] : 1;
    const int64_t pad_low = 2 * s < pads.size() ? pads[2 * s] : 0;
    const int64_t pad_high = 2 * s + 1 < pads.size() ? pads[2 * s + 1] : 0;
    // XLA's shape rule: the dilated window must fit in the padded, dilated input.
    const Int128 padded = (in_dim > 0 ? Int128{in_dim - 1} * ld + 1 : 0) + pad_low + pad_high;
    if ((Int128{kernel} - 1) * rd + 1 > padded)
      throw bad_window(fmt::format("size {} exceeds the operand's dimension {} (padded and dilated: {})", kernel,
                                   in_dim, static_cast<int64_t>(std::max<Int128>(padded, 0))));
    const int64_t out_dim = dim(out_l, in.shape, label);
    if (std::min(kernel, out_dim) > (int64_t{1} << 26))
      throw bad_window(
          fmt::format("size {} with an output dimension of {}: too many positions to count (at most "
                      "2^26 on the shorter side)",
                      kernel, out_dim));
    positions *= valid_positions(in_dim, kernel, out_dim, s < strides.size() ? strides[s] : 1, pad_low, ld, rd);
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
  if (!is_free(op)) {  // memory traffic: each array as stored, padded to whole tiles of its layout
    double bytes = static_cast<double>(in.shape.memory_bytes());
    for (const int k : in.operands)
      bytes += static_cast<double>(c.instructions[static_cast<size_t>(k)].shape.memory_bytes());
    oc.bytes = bytes;
  }
  return oc;
}

}  // namespace chorus::hlo
