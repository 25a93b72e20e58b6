// The execution-strategy search (see search.hpp for the space, the pruning and why it is exact).
#include "chorus/llm/search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/csv.hpp"
#include "chorus/llm/collective_matmul.hpp"

namespace chorus::llm {
namespace {

// The largest --max-batch: 2^30 sequences, far past any training batch.
constexpr int64_t kMaxSearchBatch = int64_t{1} << 30;

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0)
      continue;
    out.push_back(d);
    if (d != n / d)
      out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One outer tuple of the space, Calculon's unit of parallel work.
struct Task {
  int64_t tp = 1, pp = 1, dp = 1, v = 1, batch = 1;
  Recompute recompute = Recompute::kNone;
  bool sharding = false;
  TpCommType comm = TpCommType::kAr;
  std::vector<int64_t> microbatches;
  int64_t size = 0;  // configurations in this task
  uint64_t index = 0;
  int64_t ep = 1;                         // expert parallelism (MoE models only; divides dp and the experts)
  int64_t cp = 1;                         // context parallelism (SearchDims::context_par)
  Fsdp zero = Fsdp::kNone;                // kZero1 exactly when `sharding`
  std::vector<TpGemmOverlap> gemm_modes;  // communication-hiding GEMM modes that apply (SearchDims::tp_gemm_overlap)
  bool calculon_overlap = true;           // SearchDims::calculon_tp_overlap
  int64_t grad_group() const { return dp * cp; }
};

int64_t largest_batch(int64_t dp, int64_t max_batch) {
  return std::max<int64_t>(dp, max_batch / dp * dp);
}

bool can_redo(TpCommType comm, Recompute r) {
  return comm == TpCommType::kRsAg && r != Recompute::kFull;
}

// The communication-hiding GEMM modes a task can use besides Calculon's TP overlaps (collective_matmul.hpp):
// pipelined needs All-Gather / Reduce-Scatter, SUMMA sequence parallelism everywhere, a 2-D grid and a dense model.
std::vector<TpGemmOverlap> gemm_modes(const Application& app, int64_t tp, TpCommType comm, bool enabled) {
  std::vector<TpGemmOverlap> out;
  if (!enabled || tp < 2 || comm == TpCommType::kAr)
    return out;
  out.push_back(TpGemmOverlap::kPipelined);
  if (comm == TpCommType::kRsAg && summa_grid(tp).rows >= 2 && !app.moe())
    out.push_back(TpGemmOverlap::kSumma);
  return out;
}

// The TP overlap choices of one (task, AG redo): Calculon's three, then the GEMM modes (SUMMA has no AG redo).
std::vector<std::pair<TpOverlap, TpGemmOverlap>> tp_overlaps(const Task& t, bool redo) {
  std::vector<std::pair<TpOverlap, TpGemmOverlap>> out = {{TpOverlap::kNone, TpGemmOverlap::kNone}};
  if (t.tp < 2)
    return out;
  if (t.calculon_overlap) {
    out.emplace_back(TpOverlap::kRing, TpGemmOverlap::kNone);
    out.emplace_back(TpOverlap::kPipe, TpGemmOverlap::kNone);
  }
  for (TpGemmOverlap g : t.gemm_modes) {
    if (!(redo && g == TpGemmOverlap::kSumma))
      out.emplace_back(TpOverlap::kNone, g);
  }
  return out;
}

std::vector<bool> redo_choices(const Task& t) {
  return can_redo(t.comm, t.recompute) ? std::vector<bool>{true, false} : std::vector<bool>{false};
}

int64_t task_size(const Task& t, int64_t nets, bool has_mem2) {
  int64_t redo_tpo = 0;  // (AG redo, TP overlap) pairs
  for (bool redo : redo_choices(t))
    redo_tpo += static_cast<int64_t>(tp_overlaps(t, redo).size());
  const int64_t dpo = t.grad_group() > 1 ? 2 : 1;
  const int64_t wo = has_mem2 ? 2 : 1;
  const int64_t ao = has_mem2 && t.recompute != Recompute::kFull ? 2 : 1;
  const int64_t oo = has_mem2 ? 2 : 1;
  const int64_t tiers = (t.tp > 1 ? nets : 1) * (t.pp > 1 ? nets : 1) * (t.grad_group() > 1 ? nets : 1);
  return redo_tpo * dpo * wo * ao * oo * tiers * static_cast<int64_t>(t.microbatches.size());
}

// Past these, products of the enumeration (tp x pp, microbatch x seq_size) would overflow and the divisor loops
// would run for hours; the CLI names the options (--gpus, --max-batch).
void check_search_size(int64_t n, int64_t max_batch) {
  const auto max_procs = static_cast<int64_t>(limits::kMaxNpus);
  if (n < 1 || n > max_procs)
    throw Error("", Argument{"gpus"}, fmt::format("is {}; must be between 1 and {} (kMaxNpus)", n, max_procs));
  if (max_batch < 1 || max_batch > kMaxSearchBatch)
    throw Error("", Argument{"max_batch"}, fmt::format("is {}; must be between 1 and {}", max_batch, kMaxSearchBatch));
}

// Expert parallelism for a MoE model: every divisor of the data parallelism that divides the experts; 1 otherwise
// (a dense model's space stays Calculon's).
std::vector<int64_t> expert_pars(const Application& app, int64_t dp) {
  if (!app.moe())
    return {1};
  std::vector<int64_t> out;
  for (int64_t ep : divisors(dp)) {
    if (app.experts % ep == 0)
      out.push_back(ep);
  }
  return out;
}

// Context parallelism: every divisor of the GPUs left after TP x PP that divides the sequence; 1 when not searched.
std::vector<int64_t> context_pars(const Application& app, int64_t rest, const SearchDims& dims) {
  if (!dims.context_par)
    return {1};
  std::vector<int64_t> out;
  for (int64_t cp : divisors(rest)) {
    if (app.seq_size % cp == 0)
      out.push_back(cp);
  }
  return out;
}

// ZeRO stages for a gradient group of `grad` ranks, in Calculon's order (sharded first) then 2 and 3.
std::vector<Fsdp> zero_stages(int64_t grad, const SearchDims& dims) {
  if (grad <= 1)
    return {Fsdp::kNone};
  if (!dims.fsdp)
    return {Fsdp::kZero1, Fsdp::kNone};
  return {Fsdp::kZero1, Fsdp::kNone, Fsdp::kZero2, Fsdp::kZero3};
}

// PP stages hold the blocks evenly, or (Llama 3 405B's 126 blocks on 16 stages) the first and the last one block
// short, each still holding one: the layouts the trace generator expresses too.
bool stages_hold_blocks(int64_t blocks, int64_t pp) {
  return blocks % pp == 0 || ((blocks + 2) % pp == 0 && (blocks + 2) / pp >= 2);
}

// The interleavings v whose PP x v virtual stages hold the blocks evenly or with the first and the last one short.
std::vector<int64_t> pipeline_interleavings(int64_t blocks, int64_t pp) {
  if (pp == 1)
    return {1};
  std::vector<int64_t> out;
  for (int64_t v : divisors((blocks + pp - 1) / pp)) {
    if (v == 1 || blocks % (pp * v) == 0 || (blocks + 2) % (pp * v) == 0)
      out.push_back(v);
  }
  return out;
}

std::vector<Task> enumerate_tasks(const Application& app, const System& sys, int64_t n, int64_t max_batch,
                                  const SearchDims& dims) {
  check_search_size(n, max_batch);
  std::vector<Task> tasks;
  const auto nets = static_cast<int64_t>(sys.networks.size());
  const bool has_mem2 = sys.mem2.capacity_bytes > 0;
  for (int64_t tp : divisors(n)) {
    if (app.hidden % tp != 0 || app.attn_heads % tp != 0)
      continue;
    for (int64_t pp : divisors(std::min(n / tp, app.num_blocks))) {
      if (n % (tp * pp) != 0 || !stages_hold_blocks(app.num_blocks, pp))
        continue;
      for (int64_t cp : context_pars(app, n / (tp * pp), dims)) {
        const int64_t dp = n / (tp * pp * cp);
        if (dims.exact_batch && max_batch % dp != 0)
          continue;
        const std::vector<int64_t> interleavings = pipeline_interleavings(app.num_blocks, pp);
        const int64_t batch = largest_batch(dp, max_batch);
        std::vector<int64_t> mbs;
        for (int64_t m : divisors(batch / dp)) {
          if (m * app.seq_size / cp % tp == 0)
            mbs.push_back(m);
        }
        for (int64_t v : interleavings) {
          for (Recompute r : {Recompute::kFull, Recompute::kAttnOnly, Recompute::kNone}) {
            for (Fsdp zero : zero_stages(dp * cp, dims)) {
              for (TpCommType comm : {TpCommType::kAr, TpCommType::kP2pRsAg, TpCommType::kRsAg}) {
                for (int64_t ep : expert_pars(app, dp)) {
                  Task t{tp,
                         pp,
                         dp,
                         v,
                         batch,
                         r,
                         zero != Fsdp::kNone,
                         comm,
                         mbs,
                         0,
                         tasks.size(),
                         ep,
                         cp,
                         zero,
                         gemm_modes(app, tp, comm, dims.tp_gemm_overlap),
                         dims.calculon_tp_overlap};
                  t.size = task_size(t, nets, has_mem2);
                  tasks.push_back(std::move(t));
                }
              }
            }
          }
        }
      }
    }
  }
  return tasks;
}

// Per-thread state: its own top list and counters, merged at the end.
struct Worker {
  explicit Worker(int top_n) : top(top_n) {}
  TopList top;
  int64_t enumerated = 0, evaluated = 0, valid = 0, pruned = 0;
  std::string csv;
  double worst_rate() const { return top.worst_rate(); }
};

void offer(TopList& top, double rate, uint64_t ordinal, const Execution& exe, const Stats& st) {
  top.offer(Candidate{rate, ordinal, exe, st});
}

class TaskRunner {
 public:
  TaskRunner(const IterationModel& model, const SearchSpec& spec, Worker& w, std::mutex& csv_mutex)
      : model_(model), spec_(spec), w_(w), csv_mutex_(csv_mutex) {
    nets_ = static_cast<int8_t>(model.system().networks.size());
    has_mem2_ = model.system().mem2.capacity_bytes > 0;
  }

  void run(const Task& t) {
    Execution e;
    e.num_procs = spec_.num_procs;
    e.tensor_par = t.tp;
    e.pipeline_par = t.pp;
    e.data_par = t.dp;
    e.batch_size = t.batch;
    e.datatype = spec_.datatype;
    e.fused_activation = true;
    e.recompute = t.recompute;
    e.pipeline_interleaving = t.v;
    e.optimizer_sharding = t.sharding;
    e.tp_comm = t.comm;
    e.expert_par = t.ep;
    e.context_par = t.cp;
    e.fsdp = t.zero;
    e.fused_attention = spec_.dims.fused_attention;
    // The All-to-All and the CP ring are part of the block, which a group shares across DP tiers.
    place_block_groups(e, model_.system());
    ordinal_ = t.index << 32;
    const int64_t group = inner_group_size(t);
    for (int64_t mbs : t.microbatches) {
      e.microbatch_size = mbs;
      for (bool redo : redo_choices(t)) {
        e.seq_par_ag_redo = redo;
        for (const auto& [o, g] : tp_overlaps(t, redo)) {
          e.tp_overlap = o;
          e.tp_gemm_overlap = g;
          for (int8_t tn = 0; tn < (t.tp > 1 ? nets_ : 1); ++tn) {
            e.tensor_par_net = tn;
            run_group(t, e, group);
          }
        }
      }
    }
  }

 private:
  int64_t inner_group_size(const Task& t) const {
    const int64_t dpo = t.grad_group() > 1 ? 2 : 1;
    const int64_t off = (has_mem2_ ? 4 : 1) * (has_mem2_ && t.recompute != Recompute::kFull ? 2 : 1);
    return dpo * off * (t.pp > 1 ? nets_ : 1) * (t.grad_group() > 1 ? nets_ : 1);
  }

  // All configurations sharing one block: DP overlap, offloads, PP and DP tiers.
  void run_group(const Task& t, Execution& e, int64_t group) {
    w_.enumerated += group;
    Stats st;
    st.block = model_.block(e);
    if (cannot_win(t, e, st.block)) {
      w_.pruned += group;
      ordinal_ += static_cast<uint64_t>(group);
      return;
    }
    const std::vector<bool> flags_mem2 = has_mem2_ ? std::vector<bool>{true, false} : std::vector<bool>{false};
    const std::vector<bool> flags_act =
        has_mem2_ && t.recompute != Recompute::kFull ? std::vector<bool>{true, false} : std::vector<bool>{false};
    for (bool dpo : t.grad_group() > 1 ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
      e.data_par_overlap = dpo;
      for (bool wo : flags_mem2) {
        e.weight_offload = wo;
        for (bool ao : flags_act) {
          e.activations_offload = ao;
          for (bool oo : flags_mem2) {
            e.optimizer_offload = oo;
            for (int8_t pn = 0; pn < (t.pp > 1 ? nets_ : 1); ++pn) {
              e.pipeline_par_net = pn;
              for (int8_t dn = 0; dn < (t.grad_group() > 1 ? nets_ : 1); ++dn) {
                e.data_par_net = dn;
                evaluate_one(e, st);
              }
            }
          }
        }
      }
    }
  }

  // True when even the terms of the total that every configuration of the group shares cannot beat the
  // current N-th best. Each term is part of the total and every other term is >= 0, so this never drops a
  // configuration that belongs in the top list.
  bool cannot_win(const Task& t, const Execution& e, const BlockCost& b) const {
    if (!spec_.prune || spec_.csv_sink)
      return false;
    const double bar = std::max(spec_.min_rate, w_.top.full() ? w_.worst_rate() : 0.0);
    if (bar <= 0)
      return false;
    const double n_mb = static_cast<double>(t.batch / (t.dp * e.microbatch_size));
    const int64_t blocks = model_.application().num_blocks;
    const int64_t fullest = (blocks + t.pp - 1) / t.pp;
    const double bpp = static_cast<double>(fullest);
    const double bpc = bpp / static_cast<double>(t.v);
    const double block = b.fw.time + b.bw.time + b.re.time;
    const double head = exposed_head_time(blocks, t.pp, fullest,
                                          head_cost(model_.application(), e, model_.hardware(e.datatype)).time, block);
    const double lower = n_mb * bpp * block + static_cast<double>(t.pp - 1) * bpc * block + n_mb * head;
    return static_cast<double>(t.batch) / lower < bar;
  }

  void evaluate_one(const Execution& e, Stats& st) {
    const uint64_t ordinal = ordinal_++;
    // Memory first: a configuration that cannot fit needs no timing.
    const MemoryUse mem = model_.memory(e, st.block);
    const Hardware& hw = model_.hardware(e.datatype);
    if (mem.tier1 > hw.mem1().capacity_bytes || mem.tier2 > hw.mem2().capacity_bytes || !model_.networks_fit(e)) {
      return;
    }
    ++w_.evaluated;
    model_.finish(e, st);
    if (st.outcome != Outcome::kOk)
      return;
    ++w_.valid;
    offer(w_.top, st.sample_rate, ordinal, e, st);
    if (spec_.csv_sink) {
      append_csv_row(w_.csv, e, st, model_.system(), spec_.dims.tp_gemm_overlap);
      if (w_.csv.size() > (1 << 20))
        flush_csv();
    }
  }

 public:
  void flush_csv() {
    if (w_.csv.empty())
      return;
    std::lock_guard lock(csv_mutex_);
    spec_.csv_sink(w_.csv);
    w_.csv.clear();
  }

 private:
  const IterationModel& model_;
  const SearchSpec& spec_;
  Worker& w_;
  std::mutex& csv_mutex_;
  int8_t nets_ = 1;
  bool has_mem2_ = false;
  uint64_t ordinal_ = 0;
};

}  // namespace

int64_t search_space_size(const Application& app, const System& sys, int64_t num_procs, int64_t max_batch,
                          const SearchDims& dims) {
  int64_t total = 0;
  for (const Task& t : enumerate_tasks(app, sys, num_procs, max_batch, dims))
    total += t.size;
  return total;
}

void place_block_groups(Execution& e, const System& sys) {
  const auto& nets = sys.networks;
  const auto last = static_cast<int8_t>(nets.size() - 1);
  e.expert_par_net = e.tensor_par * e.expert_par <= nets[0].size ? 0 : last;
  const int64_t on_tier0 = e.tensor_par * (e.expert_par_net == 0 ? e.expert_par : 1) * e.context_par;
  e.context_par_net = on_tier0 <= nets[0].size ? 0 : last;
}

Execution canonical_execution(const Execution& e) {
  Execution c = e;
  if (c.tensor_par == 1) {  // no tensor-parallel communication: its type, overlap and tier do nothing
    c.tp_comm = TpCommType::kAr;
    c.tp_overlap = TpOverlap::kNone;
    c.tp_gemm_overlap = TpGemmOverlap::kNone;
    c.seq_par_ag_redo = false;
    c.tensor_par_net = 0;
  }
  if (c.tp_comm != TpCommType::kRsAg)
    c.seq_par_ag_redo = false;
  if (c.pipeline_par == 1) {
    c.pipeline_interleaving = 1;
    c.pipeline_par_net = 0;
  }
  if (c.grad_group() == 1) {  // no gradient reduction: nothing to shard, overlap or route
    c.optimizer_sharding = false;
    c.data_par_overlap = false;
    c.data_par_net = 0;
    c.fsdp = Fsdp::kNone;
  }
  if (c.context_par == 1)
    c.context_par_net = 0;
  if (c.expert_par == 1)
    c.expert_par_net = 0;
  return c;
}

int execution_complexity(const Execution& e) {
  return static_cast<int>(e.weight_offload) + static_cast<int>(e.activations_offload) +
         static_cast<int>(e.optimizer_offload) + static_cast<int>(e.data_par_overlap) +
         static_cast<int>(e.tp_overlap != TpOverlap::kNone) +
         static_cast<int>(e.tp_gemm_overlap != TpGemmOverlap::kNone) + static_cast<int>(e.seq_par_ag_redo) +
         static_cast<int>(e.optimizer_sharding) + static_cast<int>(e.fsdp) +
         static_cast<int>(e.pipeline_interleaving > 1);
}

bool better_candidate(const Candidate& a, const Candidate& b) {
  if (a.sample_rate != b.sample_rate)
    return a.sample_rate > b.sample_rate;
  const int ca = execution_complexity(a.execution);
  const int cb = execution_complexity(b.execution);
  if (ca != cb)
    return ca < cb;
  return a.ordinal < b.ordinal;
}

namespace {

// Every field of the canonical execution, as the key that makes two candidates the same configuration.
TopList::Key key_of(const Execution& e) {
  const Execution c = canonical_execution(e);
  return {c.num_procs,
          c.tensor_par,
          c.pipeline_par,
          c.data_par,
          c.tensor_par_net,
          c.pipeline_par_net,
          c.data_par_net,
          c.batch_size,
          c.microbatch_size,
          c.datatype,
          c.fused_activation,
          c.multiquery,
          static_cast<int64_t>(c.recompute),
          c.pipeline_interleaving,
          c.optimizer_sharding,
          static_cast<int64_t>(c.tp_comm),
          static_cast<int64_t>(c.tp_overlap),
          c.seq_par_ag_redo,
          c.data_par_overlap,
          c.weight_offload,
          c.activations_offload,
          c.optimizer_offload,
          c.training,
          c.context_par,
          c.expert_par,
          c.context_par_net,
          c.expert_par_net,
          static_cast<int64_t>(c.fsdp),
          static_cast<int64_t>(c.tp_gemm_overlap),
          c.fused_attention};
}

}  // namespace

bool TopList::Order::operator()(const Candidate& a, const Candidate& b) const {
  return better_candidate(a, b);
}

void TopList::offer(Candidate c) {
  if (n_ <= 0)
    return;
  const Key key = key_of(c.execution);
  if (const auto same = by_key_.find(key); same != by_key_.end()) {
    if (!better_candidate(c, *same->second))
      return;  // the same configuration, already held at least as well
    ranked_.erase(same->second);
    by_key_.erase(same);
  } else if (full()) {
    const auto worst = std::prev(ranked_.end());
    if (!better_candidate(c, *worst))
      return;
    by_key_.erase(key_of(worst->execution));
    ranked_.erase(worst);
  }
  const auto at = ranked_.insert(std::move(c)).first;
  by_key_.emplace(key, at);
}

double TopList::worst_rate() const {
  return ranked_.empty() ? 0.0 : std::prev(ranked_.end())->sample_rate;
}

std::vector<Candidate> TopList::sorted() const {
  return {ranked_.begin(), ranked_.end()};
}

void merge_top(std::vector<Candidate>& into, const std::vector<Candidate>& from, int n) {
  TopList top(n);
  for (const Candidate& c : into)
    top.offer(c);
  for (const Candidate& c : from)
    top.offer(c);
  into = top.sorted();
}

SearchResult run_search(const IterationModel& model, const SearchSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Task> all =
      enumerate_tasks(model.application(), model.system(), spec.num_procs, spec.max_batch, spec.dims);
  // Biggest tasks first so that the last ones to finish are small; ranks take every ranks-th task.
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a].size > all[b].size; });
  std::vector<const Task*> mine;
  int64_t my_total = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(spec.ranks)) != spec.rank)
      continue;
    mine.push_back(&all[order[i]]);
    my_total += all[order[i]].size;
  }

  if (spec.threads < 1 || static_cast<uint64_t>(spec.threads) > limits::kMaxThreads) {
    throw Error("", Argument{"threads"},
                fmt::format("is {}; must be between 1 and {} (kMaxThreads)", spec.threads, limits::kMaxThreads));
  }
  const int threads = spec.threads;
  std::vector<Worker> workers(static_cast<size_t>(threads), Worker(spec.top_n));
  std::atomic<size_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex csv_mutex;
  auto work = [&](size_t id) {
    TaskRunner runner(model, spec, workers[id], csv_mutex);
    for (size_t i = next++; i < mine.size(); i = next++) {
      runner.run(*mine[i]);
      done += mine[i]->size;
    }
    runner.flush_csv();
  };
  std::vector<std::thread> pool;
  // A thread that cannot start (no memory for its stack, a process limit) leaves its share to the others: they
  // take tasks from the shared counter, so the search still finishes, only with fewer threads.
  auto start_worker = [&](size_t id) {
    try {
      pool.emplace_back(work, id);
      return true;
    } catch (const std::system_error&) {
      return false;
    }
  };
  for (int i = 1; i < threads; ++i) {
    if (!start_worker(static_cast<size_t>(i)))
      break;
  }
  if (spec.progress && start_worker(0)) {
    // The calling thread reports progress while the others work, then joins in.
    while (done.load() < my_total) {
      spec.progress(my_total > 0 ? static_cast<double>(done.load()) / static_cast<double>(my_total) : 1.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    spec.progress(1.0);
  } else {
    work(0);
  }
  for (auto& t : pool)
    t.join();

  SearchResult r;
  for (const Worker& w : workers) {
    merge_top(r.top, w.top.sorted(), spec.top_n);
    r.enumerated += w.enumerated;
    r.evaluated += w.evaluated;
    r.valid += w.valid;
    r.pruned += w.pruned;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string csv_header(bool tp_gemm_overlap) {
  return std::string(
             "num_procs,tensor_par,pipeline_par,data_par,tensor_par_net,pipeline_par_net,data_par_net,batch_size,"
             "microbatch_size,datatype,fused_activation,attention_type,activation_recompute,pipeline_interleaving,"
             "optimizer_sharding,tensor_par_comm_type,tensor_par_overlap,seq_par_ag_redo,data_par_overlap,weight_"
             "offload,"
             "activations_offload,optimizer_offload,training,total_time,sample_rate,proc_mem_tier1_cap_req,"
             "proc_mem_tier2_cap_req,compute_efficiency,system_efficiency,total_efficiency") +
         (tp_gemm_overlap ? ",tp_gemm_overlap\n" : "\n");
}

void append_csv_row(std::string& out, const Execution& e, const Stats& st, const System& sys, bool tp_gemm_overlap) {
  auto b = [](bool x) { return x ? "true" : "false"; };
  fmt::format_to(
      std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", e.num_procs,
      e.tensor_par, e.pipeline_par, e.data_par, e.tensor_par_net, e.pipeline_par_net, e.data_par_net, e.batch_size,
      e.microbatch_size, csv_field(sys.datatypes[static_cast<size_t>(e.datatype)]), b(e.fused_activation),
      e.multiquery ? "multiquery" : "multihead", to_string(e.recompute), e.pipeline_interleaving,
      b(e.optimizer_sharding), to_string(e.tp_comm), to_string(e.tp_overlap), b(e.seq_par_ag_redo),
      b(e.data_par_overlap), b(e.weight_offload), b(e.activations_offload), b(e.optimizer_offload), b(e.training));
  fmt::format_to(std::back_inserter(out), "{:.6g},{:.6g},{:.0f},{:.0f},{:.4f},{:.4f},{:.4f}", st.total_time,
                 st.sample_rate, st.memory.tier1, st.memory.tier2, st.compute_efficiency, st.system_efficiency,
                 st.total_efficiency);
  out += tp_gemm_overlap ? fmt::format(",{}\n", to_string(e.tp_gemm_overlap)) : std::string("\n");
}

}  // namespace chorus::llm
