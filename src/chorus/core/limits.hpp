// The limits chorus puts on its inputs, in one place: above them a computation would not finish, would exhaust
// memory, or would overflow its integer types. Each error that cites one names it (e.g. "kMaxNestingDepth").
//
// To raise a limit, change its value here and rebuild; docs/cli.md ("Limits") lists them with the reasons.
#pragma once

#include <cstdint>

namespace chorus::limits {

// JSON and YAML nesting (objects and lists inside each other). Real inputs nest 4 levels deep; readers and
// library code recurse once per level, so a pathological depth would overflow the stack.
inline constexpr int kMaxNestingDepth = 128;

// HLO computations calling (fusing, calling, looping over) each other: real modules nest a few dozen deep; the cost
// model and the Chakra exporter recurse once per level, so a pathological chain would overflow the stack.
inline constexpr int kMaxCallDepth = 1000;

// Nodes per rank that `hlo convert` writes after unrolling while loops (--iterations): beyond this the traces would
// fill memory and disk (a node is about 100 bytes per rank).
inline constexpr uint64_t kMaxConvertedNodes = 10'000'000;

// A Chakra rank file, decompressed: at most 2 GiB, and past its first 64 MiB gzip data may not expand more than
// 100-fold (Chakra traces compress 5-30-fold; zeros compress 230-1030-fold, which is what a "bomb" holds).
inline constexpr uint64_t kMaxTraceBytes = uint64_t{2} << 30;
inline constexpr uint64_t kMaxGzipRatio = 100;
inline constexpr uint64_t kGzipRatioFloorBytes = uint64_t{64} << 20;

// The largest duration one Chakra node may carry: 10^12 us (about 11.6 days), far beyond any kernel and well
// inside the picosecond range of chorus::Time (about 106 days) so that sums of many nodes stay representable.
inline constexpr uint64_t kMaxNodeDurationMicros = 1'000'000'000'000;

// A link latency of more than a second is a unit mistake; collectives add thousands of latencies, and their sum
// must stay inside the picosecond range of chorus::Time (about 106 days).
inline constexpr int64_t kMaxLinkLatencyPs = 1'000'000'000'000;

// NPU ids and counts fit in 32 bits with room to spare; 2^24 NPUs is the largest topology chorus builds.
inline constexpr uint64_t kMaxNpus = uint64_t{1} << 24;

// `bound` (and the bounds reported by collective and sim) on more NPUs than this takes minutes: its cut and
// max-flow computations grow faster than linearly (ring:65536 takes seconds, ring:1048576 over a minute).
inline constexpr uint64_t kMaxBoundNpus = 131072;

// Generators write one file per NPU (microbench) and nodes per micro-batch (llm): beyond these the output would
// fill memory and disk. (A 3072-sequence batch at micro-batch size 1 is 3072 micro-batches.)
inline constexpr uint64_t kMaxGeneratedNpus = 65536;
inline constexpr uint64_t kMaxMicrobatches = 16384;

// Worker threads for searches: more than this is a typo (and may fail to start).
inline constexpr uint64_t kMaxThreads = 1024;

}  // namespace chorus::limits
