// The spreading engine (see spread.hpp). Chunk sets are bit rows, so a link's options are a few word operations:
// has[u] & ~has[v] & ~incoming[v].
#include "chorus/synth/spread.hpp"

#include <algorithm>
#include <bit>
#include <queue>
#include <span>

#include "chorus/core/assert.hpp"
#include "chorus/synth/event_lanes.hpp"
#include "chorus/synth/masked_row.hpp"

namespace chorus {

const char* to_string(ChunkPriority priority) {
  switch (priority) {
    case ChunkPriority::Random:
      return "random";
    case ChunkPriority::Scarce:
      return "scarce";
    case ChunkPriority::Unique:
      return "unique";
    case ChunkPriority::Fresh:
      return "fresh";
  }
  return "?";
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// A timed item (a release or a link becoming free), processed in time order.
struct Timed {
  Time at;
  uint32_t id = 0;
};

// SplitMix64 (Steele, Lea, Flood, OOPSLA'14): a tiny, fast generator; the engine draws a few numbers per link.
// Set bits of a word, inline (std::popcount is a library call on targets without a popcount instruction).
uint32_t bit_count(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<uint32_t>((x * 0x0101010101010101ull) >> 56);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t operator()() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

class SpreadEngine {
 public:
  explicit SpreadEngine(const SpreadProblem& p)
      : p_(p),
        g_(*p.graph),
        words_((p.chunks + 63) / 64),
        has_(size_t{g_.node_count()} * words_, 0),
        incoming_(size_t{g_.node_count()} * words_, 0),
        holders_(p.chunks, 0),
        deliver_(p.priority == ChunkPriority::Fresh ? size_t{g_.node_count()} * p.chunks : 0, kNone),
        busy_until_(g_.link_count(), Time::zero()),
        dirty_flag_(g_.link_count(), 0),
        dirty_node_flag_(g_.node_count(), 0),
        scratch_(words_, 0),
        rng_(p.seed) {}

  SpreadResult run() {
    schedule_starts();
    remaining_ = uint64_t{g_.member_count()} * p_.chunks;
    for (uint32_t c = 0; c < p_.chunks; ++c) {
      if (g_.is_member(p_.origin[c]))
        --remaining_;
    }
    // Every (member, chunk) delivery is a transfer (relays add some): sized once instead of grown by copies.
    result_.transfers.reserve(remaining_);
    arrived_.reserve(remaining_);
    while (remaining_ > 0) {
      const Time t = next_event_time();
      if (t == Time::max()) {
        result_.stalled = result_.gave_up = !p_.link_allowed.empty();
        break;
      }
      if (t >= p_.give_up) {
        result_.gave_up = true;
        break;
      }
      ++result_.events;
      apply_arrivals(t);
      apply_timed(t);
      match(t);
    }
    CHORUS_ASSERT(remaining_ == 0 || result_.gave_up, "spread: {} (member, chunk) pairs can never be served",
                  remaining_);
    if (deliver_.empty())
      link_sources();
    prune_relay_dead_ends();
    return std::move(result_);
  }

 private:
  uint64_t* row(std::vector<uint64_t>& v, uint32_t node) { return v.data() + size_t{node} * words_; }
  bool test(const std::vector<uint64_t>& v, uint32_t node, uint32_t c) const {
    return (v[size_t{node} * words_ + c / 64] >> (c % 64)) & 1;
  }
  void set(std::vector<uint64_t>& v, uint32_t node, uint32_t c) {
    v[size_t{node} * words_ + c / 64] |= 1ull << (c % 64);
  }
  void clear(std::vector<uint64_t>& v, uint32_t node, uint32_t c) {
    v[size_t{node} * words_ + c / 64] &= ~(1ull << (c % 64));
  }

  // Unique's score counts, per option c of link (u, v), the other in-links of v whose source holds or is receiving
  // c. Counted a 64-chunk word at a time instead of per option: the in-neighbours' bit rows are added into
  // bit-sliced counters (slice i holds bit i of every chunk's count), so a choice reads each in-neighbour's row
  // once per word it scans, not once per option (rows stay in cache; no per-(node, chunk) table to keep up).
  // Used up to kMaxSliced in-links (6 slices); beyond, options are counted one by one.
  static constexpr uint32_t kSlices = 6;
  static constexpr size_t kMaxSliced = (size_t{1} << kSlices) - 1;
  void slice_word(uint32_t l, uint32_t word) {
    const uint32_t u = g_.src(l);
    std::fill(std::begin(slices_), std::end(slices_), 0);
    for (uint32_t in : g_.in_links(g_.dst(l))) {
      const uint32_t w = g_.src(in);
      if (w == u)
        continue;
      uint64_t carry = has_[size_t{w} * words_ + word] | incoming_[size_t{w} * words_ + word];
      for (uint32_t i = 0; i < kSlices && carry; ++i) {
        const uint64_t next = slices_[i] & carry;
        slices_[i] ^= carry;
        carry = next;
      }
    }
    sliced_word_ = word;
  }
  uint64_t sliced_count(uint32_t c) const {
    uint64_t count = 0;
    for (uint32_t i = 0; i < kSlices; ++i)
      count |= ((slices_[i] >> (c % 64)) & 1) << i;
    return count;
  }

  void schedule_starts() {
    for (uint32_t c = 0; c < p_.chunks; ++c)
      releases_.push_back({p_.release.empty() ? Time::zero() : p_.release[c], c});
    std::stable_sort(releases_.begin(), releases_.end(), [](const Timed& a, const Timed& b) { return a.at < b.at; });
    for (uint32_t l = 0; l < g_.link_count(); ++l) {
      const Time free = p_.link_free.empty() ? Time::zero() : p_.link_free[l];
      busy_until_[l] = free;
      frees_.push_back({free, l});
    }
    std::stable_sort(frees_.begin(), frees_.end(), [](const Timed& a, const Timed& b) { return a.at < b.at; });
  }

  Time next_event_time() const {
    Time t = Time::max();
    if (!arrivals_.empty())
      t = Time::ps(arrivals_.top().time);
    if (next_release_ < releases_.size())
      t = std::min(t, releases_[next_release_].at);
    if (next_free_ < frees_.size())
      t = std::min(t, frees_[next_free_].at);
    return t;
  }

  void mark_dirty(uint32_t link) {
    if (!dirty_flag_[link]) {
      dirty_flag_[link] = 1;
      const uint32_t v = g_.dst(link);
      if (!dirty_node_flag_[v]) {
        dirty_node_flag_[v] = 1;
        dirty_nodes_.push_back(v);
      }
    }
  }
  void mark_out_dirty(uint32_t node) {
    for (uint32_t l : g_.out_links(node))
      mark_dirty(l);
  }

  void apply_arrivals(Time t) {
    while (!arrivals_.empty() && arrivals_.top().time == t.picoseconds()) {
      const uint32_t i = arrivals_.top().id;
      arrivals_.pop();
      arrived_.push_back(i);
      const SpreadTransfer& x = result_.transfers[i];
      const uint32_t v = g_.dst(x.link);
      clear(incoming_, v, x.chunk);
      set(has_, v, x.chunk);
      if (!deliver_.empty())
        deliver_[size_t{v} * p_.chunks + x.chunk] = i;
      if (g_.is_member(v)) {
        --remaining_;
        result_.makespan = std::max(result_.makespan, t);
      }
      mark_out_dirty(v);
      mark_dirty(x.link);
    }
  }

  void apply_timed(Time t) {
    for (; next_release_ < releases_.size() && releases_[next_release_].at == t; ++next_release_) {
      const uint32_t c = releases_[next_release_].id;
      set(has_, p_.origin[c], c);
      ++holders_[c];
      mark_out_dirty(p_.origin[c]);
    }
    for (; next_free_ < frees_.size() && frees_[next_free_].at <= t; ++next_free_)
      mark_dirty(frees_[next_free_].id);
  }

  // The options of link l: chunks its source holds that its destination lacks, is not receiving, and wants.
  // Returns their count; the mask is left in scratch_.
  uint32_t options(uint32_t l, const uint64_t* want) {
    const uint64_t* hu = row(has_, g_.src(l));
    const uint64_t* hv = row(has_, g_.dst(l));
    const uint64_t* iv = row(incoming_, g_.dst(l));
    const uint64_t* allowed = p_.link_allowed.empty() ? nullptr : p_.link_allowed.data() + size_t{l} * words_;
    uint32_t count = 0;
    for (uint32_t w = 0; w < words_; ++w) {
      scratch_[w] = hu[w] & ~hv[w] & ~iv[w] & (want ? want[w] : ~0ull) & (allowed ? allowed[w] : ~0ull);
      if (scratch_[w])  // most words are empty
        count += bit_count(scratch_[w]);
    }
    return count;
  }

  // What destination v can take from any in-link: chunks it neither holds nor is receiving (and, as a relay,
  // wants). Computed once per destination, so each in-link's options cost one row read and an AND.
  void fill_need(uint32_t v, const uint64_t* want) {
    const uint64_t* hv = row(has_, v);
    const uint64_t* iv = row(incoming_, v);
    need_.resize(words_);
    for (uint32_t w = 0; w < words_; ++w)
      need_[w] = ~hv[w] & ~iv[w] & (want ? want[w] : ~0ull);
  }

  // options(l) with v's need already in need_: the mask is appended to masks_ when not empty. Returns the count.
  uint32_t append_options(uint32_t l) {
    const uint64_t* hu = row(has_, g_.src(l));
    const uint64_t* allowed = p_.link_allowed.empty() ? nullptr : p_.link_allowed.data() + size_t{l} * words_;
    const size_t at = masks_.size();
    masks_.resize(at + words_);
    const uint32_t count = masked_row(hu, need_.data(), allowed, masks_.data() + at, words_);
    if (count == 0)
      masks_.resize(at);
    return count;
  }

  // A link's options counted earlier at this destination, less what v has started receiving since, i.e. the
  // chunks picked so far (incoming bits are set only by picks here): removed from the mask in place. Whether any
  // remain.
  bool remaining_options(uint64_t* mask, uint32_t count) const {
    for (const Pick& pick : picks_) {
      uint64_t& word = mask[pick.chunk / 64];
      const uint64_t bit = 1ull << (pick.chunk % 64);
      if (word & bit) {
        word &= ~bit;
        --count;
      }
    }
    return count > 0;
  }

  // Lower is better; ties keep the scan order (which starts at a random offset). `sliced`: Unique counts by
  // slice_word (few in-links).
  uint64_t score(uint32_t l, uint32_t c, bool sliced) {
    switch (p_.priority) {
      case ChunkPriority::Random:
        return 0;
      case ChunkPriority::Scarce:
        return holders_[c];
      case ChunkPriority::Fresh: {
        const uint32_t d = deliver_[size_t{g_.src(l)} * p_.chunks + c];
        return d == kNone ? uint64_t{UINT32_MAX} : uint64_t{UINT32_MAX - 1 - d};
      }
      case ChunkPriority::Unique: {
        if (sliced) {
          if (sliced_word_ != c / 64)
            slice_word(l, c / 64);
          return (sliced_count(c) << 32) | holders_[c];
        }
        const uint32_t u = g_.src(l);
        uint64_t others = 0;
        for (uint32_t in : g_.in_links(g_.dst(l))) {
          const uint32_t w = g_.src(in);
          if (w != u && (test(has_, w, c) || test(incoming_, w, c)))
            ++others;
        }
        return (others << 32) | holders_[c];
      }
    }
    return 0;
  }

  // Picks the best option in `options` (non-empty), scanning at most scan_cap options from a random offset: the
  // words from a random one on, circularly, each from its lowest bit, the first word's bits from a random bit on
  // and its lower bits last. Ties keep the first in that order.
  uint32_t choose(uint32_t l, const uint64_t* options) {
    const uint32_t start_word = words_ > 1 ? static_cast<uint32_t>(rng_() % words_) : 0;
    const uint32_t start_bit = static_cast<uint32_t>(rng_() % 64);
    sliced_word_ = kNone;  // another link, and bits may have changed since
    Best best;
    const bool sliced = g_.in_links(g_.dst(l)).size() <= kMaxSliced;
    const uint32_t cap = std::max<uint32_t>(p_.scan_cap, 1);
    uint32_t seen = 0;
    for (uint32_t i = 0, w = start_word; i <= words_; ++i, w = w + 1 == words_ ? 0 : w + 1) {
      uint64_t bits = options[w];
      if (i == 0)
        bits &= ~0ull << start_bit;
      else if (i == words_)
        bits &= start_bit ? ~(~0ull << start_bit) : 0;
      if (bits == 0)
        continue;
      const bool more = p_.priority == ChunkPriority::Unique && sliced
                            ? best_unique_in_word(l, w, bits, cap, seen, best)
                            : best_in_word(l, w, bits, cap, sliced, seen, best);
      if (!more)
        break;
    }
    return best.chunk;
  }

  struct Best {
    uint32_t chunk = kNone;
    uint64_t score = UINT64_MAX;
    void offer(uint32_t c, uint64_t s) {
      if (s < score) {
        score = s;
        chunk = c;
      }
    }
  };

  // Scores the options `bits` of word w one by one, lowest bit first, until the scan cap. Whether to go on.
  bool best_in_word(uint32_t l, uint32_t w, uint64_t bits, uint32_t cap, bool sliced, uint32_t& seen, Best& best) {
    while (bits) {
      const uint32_t c = w * 64 + static_cast<uint32_t>(std::countr_zero(bits));
      bits &= bits - 1;
      best.offer(c, score(l, c, sliced));
      if (++seen >= cap || p_.priority == ChunkPriority::Random)
        return false;
    }
    return true;
  }

  // best_in_word for Unique with few in-links, a word at a time: of the options the cap lets it see, only those
  // with the word's lowest count can hold the best score (the count is its high half), and they are found with
  // bit operations on the count slices; just these are scored, lowest bit first. Whether to go on.
  bool best_unique_in_word(uint32_t l, uint32_t w, uint64_t bits, uint32_t cap, uint32_t& seen, Best& best) {
    uint64_t visible = bits;
    uint32_t count = bit_count(bits);
    if (count > cap - seen) {
      uint64_t rest = bits;
      for (uint32_t k = 0; k < cap - seen; ++k)
        rest &= rest - 1;
      visible = bits & ~rest;
      count = cap - seen;
    }
    seen += count;
    if (sliced_word_ != w)
      slice_word(l, w);
    // From the highest slice down, keep the options with a 0 there whenever some have one: the minimal counts.
    uint64_t lowest = visible;
    for (uint32_t i = kSlices; i-- > 0;) {
      const uint64_t zero = lowest & ~slices_[i];
      if (zero)
        lowest = zero;
    }
    const uint64_t others = sliced_count(w * 64 + static_cast<uint32_t>(std::countr_zero(lowest))) << 32;
    for (uint64_t b = lowest; b;) {
      const uint32_t c = w * 64 + static_cast<uint32_t>(std::countr_zero(b));
      b &= b - 1;
      best.offer(c, others | holders_[c]);
    }
    return seen < cap;
  }

  void start(uint32_t l, uint32_t c, Time t) {
    const uint32_t u = g_.src(l);
    const uint32_t v = g_.dst(l);
    const uint32_t index = static_cast<uint32_t>(result_.transfers.size());
    const Time end = t + p_.tau[l];
    // `from` is filled in after the run (link_sources) unless Fresh keeps deliver_ for its scores.
    result_.transfers.push_back({l, c, t, end, deliver_.empty() ? kNoTransfer : deliver_[size_t{u} * p_.chunks + c]});
    busy_until_[l] = end;
    set(incoming_, v, c);
    ++holders_[c];
    arrivals_.push(p_.tau[l].picoseconds(), {end.picoseconds(), index});
    if (!g_.is_member(u) && !p_.relays_replicate) {
      clear(has_, u, c);  // the relay's copy is used up; another may come in later
      for (uint32_t in : g_.in_links(u))
        mark_dirty(in);
    }
  }

  // What relay v should accept: chunks some out-neighbour lacks and is not receiving.
  void relay_want(uint32_t v, std::vector<uint64_t>& want) {
    want.assign(words_, 0);
    for (uint32_t l : g_.out_links(v)) {
      const uint32_t w = g_.dst(l);
      if (!g_.is_member(w)) {
        std::fill(want.begin(), want.end(), ~0ull);
        return;
      }
      const uint64_t* hw = row(has_, w);
      const uint64_t* iw = row(incoming_, w);
      for (uint32_t k = 0; k < words_; ++k)
        want[k] |= ~hw[k] & ~iw[k];
    }
  }

  struct Pick {
    uint32_t link;
    uint32_t chunk;
  };

  // One augmenting step: some link already matched at this destination takes another option, freeing a chunk
  // that link l can carry.
  bool augment(uint32_t l, std::vector<Pick>& picks, const uint64_t* want) {
    const uint32_t u = g_.src(l);
    for (Pick& other : picks) {
      if (!test(has_, u, other.chunk) || (want && !((want[other.chunk / 64] >> (other.chunk % 64)) & 1)))
        continue;
      if (options(other.link, want) == 0)
        continue;
      const uint32_t replacement = choose(other.link, scratch_.data());
      set(incoming_, g_.dst(l), replacement);
      const uint32_t freed = other.chunk;
      other.chunk = replacement;
      picks.push_back({l, freed});
      return true;
    }
    return false;
  }

  void match_destination(uint32_t v, std::span<const uint32_t> links, Time t) {
    const uint64_t* want = nullptr;
    if (!g_.is_member(v)) {
      relay_want(v, want_);
      want = want_.data();
    }
    order_.clear();
    masks_.clear();
    fill_need(v, want);
    for (uint32_t l : links) {
      const auto at = static_cast<uint32_t>(masks_.size());
      const uint32_t n = append_options(l);
      if (n > 0)
        order_.push_back({n, static_cast<uint32_t>(rng_()), l, at});
    }
    std::sort(order_.begin(), order_.end());
    picks_.clear();
    for (const auto& [n, tie, l, mask] : order_) {
      // Since its options were counted, only v's incoming bits changed (the picks so far): mask them out.
      if (remaining_options(masks_.data() + mask, n)) {
        const uint32_t c = choose(l, masks_.data() + mask);
        set(incoming_, v, c);
        picks_.push_back({l, c});
      } else {
        augment(l, picks_, want);
      }
    }
    // Picks only marked incoming so far; now start them (a relay's copy may be consumed by start()).
    for (const Pick& pick : picks_) {
      clear(incoming_, v, pick.chunk);
      start(pick.link, pick.chunk, t);
    }
  }

  // Destinations in increasing order, each with its ready dirty in-links in increasing order: the dirty
  // destinations are sorted (fewer than the dirty links), then each one's in-links are scanned for dirty flags.
  void match(Time t) {
    std::sort(dirty_nodes_.begin(), dirty_nodes_.end());
    for (uint32_t v : dirty_nodes_) {
      dirty_node_flag_[v] = 0;
      ready_.clear();
      for (uint32_t l : g_.in_links(v)) {
        if (!dirty_flag_[l])
          continue;
        dirty_flag_[l] = 0;
        if (busy_until_[l] <= t)
          ready_.push_back(l);  // a busy link is re-examined when it is freed (its arrival marks it again)
      }
      if (!ready_.empty())
        match_destination(v, ready_, t);
    }
    dirty_nodes_.clear();
  }

  // Each transfer's `from`: the transfer that brought its chunk to its source, i.e. the last arrival of the chunk
  // there no later than the transfer's start (arrivals at t are applied before the starts at t, as in run()).
  // Done per chunk after the run, where a node-sized table stays in cache, instead of a (node, chunk) table
  // touched at random twice per transfer.
  void link_sources() {
    HugeVector<SpreadTransfer>& x = result_.transfers;
    std::vector<uint32_t> begin(size_t{p_.chunks} + 1, 0);
    for (const SpreadTransfer& t : x)
      ++begin[t.chunk + 1];
    for (uint32_t c = 0; c < p_.chunks; ++c)
      begin[c + 1] += begin[c];
    HugeVector<uint32_t> by_chunk(x.size());
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    for (uint32_t i = 0; i < x.size(); ++i)
      by_chunk[fill[x[i].chunk]++] = i;  // start order within a chunk
    // Arrivals in the order run() applied them (by end, then index), grouped by chunk the same way. Transfers that
    // never arrived (a run given up) are nobody's source.
    HugeVector<uint32_t> arrived_by_chunk(x.size(), kNoTransfer);
    fill.assign(begin.begin(), begin.end() - 1);
    for (uint32_t i : arrived_)
      arrived_by_chunk[fill[x[i].chunk]++] = i;
    std::vector<uint32_t> last(g_.node_count(), kNoTransfer);
    for (uint32_t c = 0; c < p_.chunks; ++c) {
      const auto starts = std::span<const uint32_t>(by_chunk).subspan(begin[c], begin[c + 1] - begin[c]);
      uint32_t a = begin[c];
      for (uint32_t j : starts) {
        for (; a < fill[c] && x[arrived_by_chunk[a]].end <= x[j].start; ++a)
          last[g_.dst(x[arrived_by_chunk[a]].link)] = arrived_by_chunk[a];
        x[j].from = last[g_.src(x[j].link)];
      }
      for (uint32_t i : starts)
        last[g_.dst(x[i].link)] = kNoTransfer;
    }
  }

  // Transfers into a relay whose copy is never forwarded are dropped (backwards, so chains of them go too).
  void prune_relay_dead_ends() {
    HugeVector<SpreadTransfer>& x = result_.transfers;
    std::vector<char> needed(x.size(), 0);
    for (size_t i = x.size(); i-- > 0;) {
      if (g_.is_member(g_.dst(x[i].link)))
        needed[i] = 1;
      if (needed[i] && x[i].from != kNoTransfer)
        needed[x[i].from] = 1;
    }
    if (std::all_of(needed.begin(), needed.end(), [](char n) { return n != 0; }))
      return;
    std::vector<uint32_t> renumber(x.size(), kNoTransfer);
    size_t kept = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!needed[i])
        continue;
      renumber[i] = static_cast<uint32_t>(kept);
      SpreadTransfer y = x[i];
      if (y.from != kNoTransfer)
        y.from = renumber[y.from];
      x[kept++] = y;
    }
    x.resize(kept);
  }

  const SpreadProblem& p_;
  const SynthGraph& g_;
  uint32_t words_;
  std::vector<uint64_t> has_, incoming_;
  std::vector<uint32_t> holders_;  // per chunk: nodes holding it or receiving it
  std::vector<uint32_t> deliver_;  // per (node, chunk): the transfer that brought it
  uint64_t slices_[kSlices] = {};  // Unique's counts for one word of chunks (slice_word)
  uint32_t sliced_word_ = kNone;
  std::vector<Time> busy_until_;
  std::vector<char> dirty_flag_;
  std::vector<char> dirty_node_flag_;
  std::vector<uint32_t> dirty_nodes_, ready_;
  std::vector<uint64_t> scratch_, want_, need_;
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> order_;  // (options, tie, link, mask offset)
  std::vector<uint64_t> masks_;                                            // the options of order_'s links when counted
  std::vector<Pick> picks_;
  EventLanes arrivals_;           // transfers in flight, by end
  HugeVector<uint32_t> arrived_;  // transfers in the order they arrived
  std::vector<Timed> releases_, frees_;
  size_t next_release_ = 0, next_free_ = 0;
  uint64_t remaining_ = 0;
  SplitMix64 rng_;
  SpreadResult result_;
};

}  // namespace

SpreadResult spread(const SpreadProblem& problem) {
  CHORUS_ASSERT(problem.graph != nullptr, "spread: no graph");
  CHORUS_ASSERT(problem.origin.size() == problem.chunks, "spread: {} origins for {} chunks", problem.origin.size(),
                problem.chunks);
  return SpreadEngine(problem).run();
}

}  // namespace chorus
