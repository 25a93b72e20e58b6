// Search over execution strategies: Calculon's llm-optimal-execution space, evaluated in parallel threads,
// with pruning that cannot change the answer.
//
// The space (identical to Calculon's, 11,698,528 configurations for GPT-3 175B on 1,024 GPUs with max batch
// 1,536): TP | N, hidden and heads; PP | num_blocks with TP x PP | N; DP = N / (TP PP); interleaving v |
// blocks/PP (1 when PP = 1); batch = the largest multiple of DP <= max batch; recompute {full, attn_only,
// none}; optimizer sharding (DP > 1); TP comm {ar, p2p_rs_ag, rs_ag}; then AG redo (rs_ag without full
// recompute), DP overlap (DP > 1), TP overlap (TP > 1), weight / activation (not with full recompute) /
// optimizer offload (when mem2 exists), microbatch | local batch with mbs x seq divisible by TP, and a
// network tier for each parallelism larger than 1. MoE models add expert parallelism; SearchDims adds context
// parallelism (a factor of N beside TP, PP, DP), the ZeRO stages 2 and 3, and the communication-hiding GEMMs
// (tp_gemm_overlap pipelined / summa) among the TP overlap choices; calculon_tp_overlap = false drops Calculon's
// ring / pipe (chorus llm search --tp-overlap-model).
//
// How it is fast: the per-layer block accounting depends only on (mbs, AG redo, TP overlap, TP tier), so it is
// computed once and shared by the up-to-64 configurations that differ in offload, DP overlap and PP/DP tiers;
// memory is checked before any timing; and a group whose lower bound on iteration time (compute + recompute +
// LM head + the compute part of the bubble, all terms of the total) cannot beat the current N-th best is
// skipped. Every configuration is still counted as enumerated. The top list holds distinct configurations
// (canonical_execution: keys that cannot matter, such as the TP comm type at TP 1, do not make two); ties go to the
// simpler configuration (fewer optional techniques), then to enumeration order, so the top list is the same for
// any thread or rank count, and the same as an exhaustive evaluation.
//
//   SearchSpec spec{.num_procs = 1024, .max_batch = 1536, .datatype = 0, .top_n = 20};
//   SearchResult r = run_search(model, spec);
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "chorus/llm/iteration.hpp"

namespace chorus::llm {

// Dimensions beyond Calculon's space (expert parallelism joins it for MoE models in any case). Off, the space is
// Calculon's, counted and ordered identically.
struct SearchDims {
  bool context_par = false;  // CP: every divisor of N / (TP x PP) that divides seq_size (DP = the rest)
  bool fsdp = false;         // ZeRO-2 and ZeRO-3 beside none and ZeRO-1 (Calculon's optimizer sharding)
  // Also try the communication-hiding GEMMs (tp_gemm_overlap pipelined and summa, with tensor_par_overlap none)
  // wherever they apply. CSV rows then end with a tp_gemm_overlap column.
  bool tp_gemm_overlap = false;
  // Try Calculon's tiled TP overlaps (tensor_par_overlap ring and pipe). Off with tp_gemm_overlap on compares the
  // decomposed GEMMs with no overlap only (Calculon's tiles can beat the collective's own time; docs/llm.md).
  bool calculon_tp_overlap = true;
  bool fused_attention = false;  // every candidate runs fused (Flash) attention; the space's size is unchanged
  // Only data parallelisms (x CP) that divide max_batch: every configuration trains exactly max_batch sequences, so
  // iteration times compare directly (chorus codesign).
  bool exact_batch = false;
};

struct SearchSpec {
  SearchDims dims;
  int64_t num_procs = 1;
  int64_t max_batch = 1;
  int datatype = 0;
  int top_n = 10;
  int threads = 1;
  bool prune = true;  // off: evaluate every configuration (used to check that pruning changes nothing)
  // A caller's own bar (chorus codesign): groups that cannot reach this sample rate are skipped as those that cannot
  // enter the top list are (only with prune). Configurations below it may still be returned.
  double min_rate = 0;
  // Every valid configuration as CSV rows, in chunks, from any thread (calls are serialised). Disables the
  // "cannot win" pruning, since every valid row is wanted.
  std::function<void(const std::string&)> csv_sink;
  // Fraction done, called about five times a second from the calling thread.
  std::function<void(double)> progress;
  int rank = 0;  // this process's share of the outer tasks when the search is split over processes
  int ranks = 1;
};

struct Candidate {
  double sample_rate = 0;
  uint64_t ordinal = 0;  // position in the enumeration, the tie-breaker
  Execution execution;
  Stats stats;
};

struct SearchResult {
  std::vector<Candidate> top;  // best first
  int64_t enumerated = 0;      // configurations in (this rank's share of) the space
  int64_t evaluated = 0;       // fully timed
  int64_t valid = 0;           // timed and fitting in memory and networks
  int64_t pruned = 0;          // skipped because they could not enter the top list
  double seconds = 0;
};

// The size of the space, by enumeration alone (for progress, tests and docs).
int64_t search_space_size(const Application& app, const System& sys, int64_t num_procs, int64_t max_batch,
                          const SearchDims& dims = {});

// The network tiers the search gives the groups a block's accounting depends on: EP, then CP, on the scale-up tier
// (0) while TP x EP (x CP) fits one of its domains, else on the last tier.
void place_block_groups(Execution& e, const System& sys);

SearchResult run_search(const IterationModel& model, const SearchSpec& spec);

// The execution with the keys that cannot matter reset (TP comm type, overlap and tier at TP 1; AG redo without
// rs_ag; the pipeline keys at PP 1; sharding, DP overlap and tier with one gradient rank; CP and EP tiers at 1):
// two executions with the same canonical form are one configuration.
Execution canonical_execution(const Execution& e);
// How many optional techniques an execution turns on (offloads, overlaps, AG redo, sharding, ZeRO stage,
// interleaving): of two equally fast configurations the top list keeps the one with fewer.
int execution_complexity(const Execution& e);
// The top list's order: sample rate desc, then complexity asc, then enumeration order.
bool better_candidate(const Candidate& a, const Candidate& b);

// The best `n` distinct configurations (by canonical_execution), in better_candidate order: O(log n) per offer,
// so --top 100000 costs no more than the evaluation.
class TopList {
 public:
  using Key = std::array<int64_t, 30>;
  explicit TopList(int n) : n_(n) {}
  void offer(Candidate c);
  bool full() const { return static_cast<int>(ranked_.size()) >= n_; }
  size_t size() const { return ranked_.size(); }
  double worst_rate() const;  // 0 when empty
  std::vector<Candidate> sorted() const;

 private:
  struct Order {
    bool operator()(const Candidate& a, const Candidate& b) const;
  };
  int n_;
  std::set<Candidate, Order> ranked_;
  std::map<Key, std::set<Candidate, Order>::iterator> by_key_;
};

// Keeps the best `n` distinct configurations of both lists (TopList); used to merge threads and ranks.
void merge_top(std::vector<Candidate>& into, const std::vector<Candidate>& from, int n);

// CSV of configurations: Calculon's execution keys then the main statistics.
std::string csv_header(bool tp_gemm_overlap = false);
void append_csv_row(std::string& out, const Execution& exe, const Stats& st, const System& sys,
                    bool tp_gemm_overlap = false);

}  // namespace chorus::llm
