// Golden-section search: the minimum of a unimodal function on [lo, hi], narrowed `steps` times by the golden
// ratio; the calibrations (llm/calibration.cpp, nccl/fit.cpp) fit one coordinate at a time with it.
//
//   const double x = golden_section_minimum([](double v) { return (v - 2) * (v - 2); }, 0, 5, 40);  // ~2
#pragma once

#include <cmath>

namespace chorus {

// The middle of the last bracket. `f` is called 2 + steps times.
template <class F>
double golden_section_minimum(F&& f, double lo, double hi, int steps) {
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  double a = hi - ratio * (hi - lo);
  double b = lo + ratio * (hi - lo);
  double fa = f(a);
  double fb = f(b);
  for (int i = 0; i < steps; ++i) {
    if (fa < fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = f(a);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = f(b);
    }
  }
  return (lo + hi) / 2;
}

}  // namespace chorus
