// Symbolic execution of an MSCCL program (see check.hpp).
#include "chorus/msccl/check.hpp"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

// Refuse to check programs whose symbolic state would exceed this (GPUs x chunks x rank-set words).
constexpr uint64_t kMaxCheckWords = uint64_t{1} << 25;  // 256 MiB

constexpr uint32_t kEmpty = UINT32_MAX;      // nothing written yet
constexpr uint32_t kMixed = UINT32_MAX - 1;  // a sum of different chunks, or counting a GPU twice

// The symbolic value of every chunk slot: an input-chunk index and the set of GPUs whose copies were summed.
class Values {
 public:
  Values(size_t slots, uint32_t words) : words_(words), index_(slots, kEmpty), ranks_(slots * words, 0) {}
  void set_input(size_t slot, uint32_t index, uint32_t rank) {
    index_[slot] = index;
    ranks_[slot * words_ + rank / 64] |= uint64_t{1} << (rank % 64);
  }
  void copy(size_t to, const Values& from, size_t slot) {
    index_[to] = from.index_[slot];
    std::copy_n(from.ranks_.begin() + static_cast<std::ptrdiff_t>(slot * words_), words_,
                ranks_.begin() + static_cast<std::ptrdiff_t>(to * words_));
  }
  // this[to] += from[slot]
  void add(size_t to, const Values& from, size_t slot) {
    const uint32_t a = index_[to], b = from.index_[slot];
    if (a == kEmpty || b == kEmpty || a == kMixed || b == kMixed || a != b) {
      index_[to] = kMixed;
      return;
    }
    for (uint32_t w = 0; w < words_; ++w) {
      uint64_t& mine = ranks_[to * words_ + w];
      const uint64_t theirs = from.ranks_[slot * words_ + w];
      if (mine & theirs)
        index_[to] = kMixed;
      mine |= theirs;
    }
  }
  uint32_t index(size_t slot) const { return index_[slot]; }
  uint32_t rank_count(size_t slot) const {
    uint32_t c = 0;
    for (uint32_t w = 0; w < words_; ++w)
      c += static_cast<uint32_t>(std::popcount(ranks_[slot * words_ + w]));
    return c;
  }
  bool has_rank(size_t slot, uint32_t rank) const { return (ranks_[slot * words_ + rank / 64] >> (rank % 64)) & 1; }
  void resize(size_t slots) {
    index_.resize(slots, kEmpty);
    ranks_.resize(slots * words_, 0);
  }

 private:
  uint32_t words_;
  std::vector<uint32_t> index_;
  std::vector<uint64_t> ranks_;
};

struct Expected {
  uint32_t index = 0;
  int64_t single_rank = -1;  // -1: the sum over all GPUs
};

class Checker {
 public:
  Checker(const MscclProgram& p, const MscclDag& d) : p_(p), d_(d), words_((p.ngpus + 63) / 64) {
    uint64_t slots = 0;
    base_.resize(p.ngpus);
    for (uint32_t g = 0; g < p.ngpus; ++g) {
      base_[g] = slots;
      slots += uint64_t{p.gpus[g].i_chunks} + p.gpus[g].o_chunks + p.gpus[g].s_chunks;
    }
    uint64_t in_flight = 0;
    flight_.assign(p.steps.size(), 0);
    for (size_t i = 0; i < p.steps.size(); ++i) {
      if (msccl_sends(p.steps[i].type)) {
        flight_[i] = in_flight;
        in_flight += p.steps[i].count;
      }
    }
    if ((slots + in_flight) * (words_ + 1) > kMaxCheckWords) {
      throw Error(p.file, "algo",
                  fmt::format("{} GPUs with {} buffer chunks and {} chunks sent are too many to check (at most {} "
                              "words of state)",
                              p.ngpus, slots, in_flight, kMaxCheckWords));
    }
    aliased_ = p.inplace && !p.outofplace;
    buffers_ = Values(slots, words_);
    flying_ = Values(in_flight, words_);
  }

  void run() {
    for (uint32_t g = 0; g < p_.ngpus; ++g) {
      for (uint32_t j = 0; j < p_.gpus[g].i_chunks; ++j)
        buffers_.set_input(slot(g, MscclBuffer::Input, j), j, g);
    }
    for (const uint32_t n : d_.order)
      (n % 2 == 0 ? local(n / 2) : send(n / 2));
    for (uint32_t g = 0; g < p_.ngpus; ++g)
      verify(g);
  }

 private:
  // The slot of chunk `off` of a buffer, through the in-place aliases.
  size_t slot(uint32_t g, MscclBuffer b, uint32_t off) const {
    const MscclGpu& gpu = p_.gpus[g];
    if (aliased_ && p_.kind) {
      if (*p_.kind == CollectiveKind::AllGather && b == MscclBuffer::Input) {
        b = MscclBuffer::Output;
        off += g * gpu.i_chunks;
      } else if (*p_.kind == CollectiveKind::ReduceScatter && b == MscclBuffer::Output) {
        b = MscclBuffer::Input;
        off += g * gpu.o_chunks;
      } else if (*p_.kind != CollectiveKind::AllGather && *p_.kind != CollectiveKind::ReduceScatter &&
                 b == MscclBuffer::Input) {
        b = MscclBuffer::Output;
      }
    }
    const uint64_t region = b == MscclBuffer::Input    ? 0
                            : b == MscclBuffer::Output ? gpu.i_chunks
                                                       : uint64_t{gpu.i_chunks} + gpu.o_chunks;
    return base_[g] + region + off;
  }

  // The sending part of step i: a plain send reads its source buffer now (rcs/rrs/rrcs filled flying_ already).
  void send(uint32_t i) {
    const MscclStep& s = p_.steps[i];
    if (s.type != MscclStepType::Send)
      return;
    for (uint32_t c = 0; c < s.count; ++c)
      flying_.copy(flight_[i] + c, buffers_, slot(d_.gpu[i], s.src_buf, s.src_off + c));
  }

  void local(uint32_t i) {
    const MscclStep& s = p_.steps[i];
    const uint32_t g = d_.gpu[i];
    using T = MscclStepType;
    if (s.type == T::Nop)
      return;
    if (s.type == T::Copy || s.type == T::Reduce) {
      Values tmp(s.count, words_);  // source and destination ranges may overlap
      for (uint32_t c = 0; c < s.count; ++c)
        tmp.copy(c, buffers_, slot(g, s.src_buf, s.src_off + c));
      for (uint32_t c = 0; c < s.count; ++c) {
        const size_t to = slot(g, s.dst_buf, s.dst_off + c);
        (s.type == T::Copy ? buffers_.copy(to, tmp, c) : buffers_.add(to, tmp, c));
      }
      return;
    }
    const uint64_t in = flight_[d_.from[i]];
    for (uint32_t c = 0; c < s.count; ++c) {
      Values v(1, words_);
      v.copy(0, flying_, in + c);
      if (msccl_reduces(s.type))
        v.add(0, buffers_, slot(g, s.src_buf, s.src_off + c));
      if (s.type != T::RecvReduceSend && s.type != T::Send)
        buffers_.copy(slot(g, s.dst_buf, s.dst_off + c), v, 0);
      if (msccl_sends(s.type))
        flying_.copy(flight_[i] + c, v, 0);
    }
  }

  std::string describe(size_t slot) const {
    const uint32_t index = buffers_.index(slot);
    if (index == kEmpty)
      return "nothing (never written)";
    if (index == kMixed)
      return "a sum of different chunks, or one counting a GPU twice";
    std::string ranks;
    uint32_t shown = 0;
    for (uint32_t r = 0; r < p_.ngpus && shown < 8; ++r) {
      if (buffers_.has_rank(slot, r)) {
        ranks += fmt::format("{}{}", shown ? "," : "", r);
        ++shown;
      }
    }
    const uint32_t count = buffers_.rank_count(slot);
    return fmt::format("input chunk {} of {} GPU{} ({}{})", index, count, count == 1 ? "" : "s", ranks,
                       count > shown ? ",..." : "");
  }

  std::string describe(const Expected& e) const {
    if (e.single_rank >= 0)
      return fmt::format("input chunk {} of GPU {}", e.index, e.single_rank);
    return fmt::format("input chunk {} summed over all {} GPUs", e.index, p_.ngpus);
  }

  bool matches(size_t slot, const Expected& e) const {
    if (buffers_.index(slot) != e.index)
      return false;
    if (e.single_rank >= 0)
      return buffers_.rank_count(slot) == 1 && buffers_.has_rank(slot, static_cast<uint32_t>(e.single_rank));
    return buffers_.rank_count(slot) == p_.ngpus;
  }

  // Output chunk y of GPU g must hold this (nullopt: nothing required).
  std::optional<Expected> expected(uint32_t g, uint32_t y) const {
    const MscclGpu& gpu = p_.gpus[g];
    const uint32_t n = p_.ngpus;
    switch (*p_.kind) {
      case CollectiveKind::AllReduce:
        return Expected{y, -1};
      case CollectiveKind::AllGather:
        return Expected{y % gpu.i_chunks, y / gpu.i_chunks};
      case CollectiveKind::ReduceScatter:
        return Expected{g * gpu.o_chunks + y, -1};
      case CollectiveKind::AllToAll: {
        const uint32_t k = gpu.o_chunks / n;
        return Expected{g * k + y % k, y / k};
      }
      case CollectiveKind::Broadcast:
        return Expected{y, p_.root};
      case CollectiveKind::Reduce:
        return g == p_.root ? std::optional<Expected>(Expected{y, -1}) : std::nullopt;
    }
    return std::nullopt;
  }

  void verify(uint32_t g) const {
    for (uint32_t y = 0; y < p_.gpus[g].o_chunks; ++y) {
      const auto e = expected(g, y);
      const size_t s = slot(g, MscclBuffer::Output, y);
      if (e && !matches(s, *e)) {
        throw Error(p_.file, fmt::format("gpu {} output chunk {}", g, y),
                    fmt::format("holds {} at the end; {} needs {}", describe(s), p_.coll, describe(*e)));
      }
    }
  }

  const MscclProgram& p_;
  const MscclDag& d_;
  uint32_t words_;
  bool aliased_ = false;
  std::vector<uint64_t> base_, flight_;
  Values buffers_{0, 1}, flying_{0, 1};
};

// The chunk counts the collective needs, checked before running it (so every offset computed above is valid).
void check_counts(const MscclProgram& p) {
  const uint32_t n = p.ngpus;
  for (uint32_t g = 0; g < n; ++g) {
    const MscclGpu& gpu = p.gpus[g];
    const std::string where = fmt::format("gpu {}", g);
    const auto need = [&](const char* field, uint64_t have, uint64_t want, const std::string& rule) {
      if (have != want)
        throw Error(p.file, where + ": " + field, fmt::format("is {}; {} needs {} ({})", have, p.coll, want, rule));
    };
    if (gpu.o_chunks == 0)
      throw Error(p.file, where + ": o_chunks", "is 0; the collective writes an output");
    switch (*p.kind) {
      case CollectiveKind::AllGather:
        need("o_chunks", gpu.o_chunks, uint64_t{n} * gpu.i_chunks, "ngpus x i_chunks");
        break;
      case CollectiveKind::ReduceScatter:
        need("i_chunks", gpu.i_chunks, uint64_t{n} * gpu.o_chunks, "ngpus x o_chunks");
        break;
      case CollectiveKind::AllToAll:
        need("i_chunks", gpu.i_chunks, gpu.o_chunks, "o_chunks");
        if (gpu.o_chunks % n != 0)
          throw Error(p.file, where + ": o_chunks",
                      fmt::format("is {}; alltoall needs a multiple of ngpus ({})", gpu.o_chunks, n));
        break;
      default:
        need("i_chunks", gpu.i_chunks, gpu.o_chunks, "o_chunks");
        break;
    }
    // The runtime cuts the buffer into nchunksperloop chunks: a count other than the larger buffer's would make
    // every chunk index stand for another share of the data (the program would move too little or too much).
    const uint32_t held = std::max(gpu.i_chunks, gpu.o_chunks);
    if (p.nchunksperloop != held)
      throw Error(p.file, "algo: nchunksperloop",
                  fmt::format("is {}; the buffers hold {} chunks (i_chunks/o_chunks)", p.nchunksperloop, held));
  }
}

}  // namespace

bool check_msccl_semantics(const MscclProgram& program, const MscclDag& dag) {
  if (!program.kind)
    return false;
  check_counts(program);
  Checker checker(program, dag);
  checker.run();
  return true;
}

}  // namespace chorus
