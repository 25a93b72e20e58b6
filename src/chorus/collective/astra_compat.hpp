// ASTRA-sim compatibility as one object: the places where chorus follows ASTRA-sim's system layer instead of its
// own arithmetic. An ASTRA-sim system file turns all of them on (AstraCompat::full()); the plan carries the object
// (Overheads::astra) and every layer below reads it from there, so the ASTRA-sim rows of
// tests/sim/astra_compat_test.cpp hold in every model and evaluator.
#pragma once

namespace chorus {

struct AstraCompat {
  // Message hops and reductions cost whole nanoseconds, truncated, as ASTRA-sim charges them (DimensionalCost for
  // the unaware model, per hop for aware, 3 * floor(bytes / (GB/s)) ns per reduction).
  bool whole_ns_rounding = false;
  // A chunk of a collective other than All-Gather is at least `npus` bytes (ASTRA-sim's chunk sizing).
  bool min_chunk_bytes = false;

  // Any compatibility at all: ASTRA-sim's dimensional costs then need a dimensional network.
  constexpr bool enabled() const { return whole_ns_rounding || min_chunk_bytes; }
  static constexpr AstraCompat full() { return {true, true}; }
  constexpr bool operator==(const AstraCompat&) const = default;
};

}  // namespace chorus
