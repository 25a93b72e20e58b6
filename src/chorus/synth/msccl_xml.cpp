// MSCCL XML writer (see msccl_xml.hpp).
#include "chorus/synth/msccl_xml.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/io/xml_text.hpp"
#include "chorus/synth/switch_collapse.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNoOp = UINT32_MAX;
constexpr const char* kCopy = "cpy";

struct Step {
  const char* type = "";
  uint32_t chunk = 0;
  int64_t dep_tb = -1, dep_step = -1;
  bool has_dep = false;
  uint32_t op = 0;   // the transfer this step belongs to; a "cpy" step: the buffer chunk it copies
  int64_t off = -1;  // bundled schedules: the run's first buffer chunk (else from the op's chunk)
  uint32_t cnt = 1;
};

struct ThreadBlock {
  int64_t send = -1, recv = -1;
  uint32_t chan = 0;
  std::vector<Step> steps;
};

const char* coll_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllGather:
      return "allgather";
    case CollectiveKind::ReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::AllReduce:
      return "allreduce";
    case CollectiveKind::Broadcast:
      return "broadcast";
    case CollectiveKind::Reduce:
      return "reduce";
    case CollectiveKind::AllToAll:
      return "alltoall";
  }
  return "custom";
}

}  // namespace

class XmlWriter {
 public:
  XmlWriter(const SynthResult& r, bool switched, bool order_switch_sends)
      : r_(r),
        s_(r.schedule),
        n_(static_cast<uint32_t>(r.members.size())),
        switched_(switched),
        order_switch_sends_(order_switch_sends),
        bundled_(!r.bundle_start.empty()) {
    for (uint32_t i = 0; i < n_; ++i)
      rank_[r.members[i]] = i;
    gpus_.resize(n_);
    send_step_.assign(s_.size(), {-1, -1});
    recv_step_.assign(s_.size(), {-1, -1});
  }

  // Lays out every GPU's thread blocks and steps (the XML is rendered from them, never held whole).
  void build() {
    // MSCCL buffers are cut into equal chunks: an alltoallv (non-uniform --demand) has no such layout.
    if (r_.kind == CollectiveKind::AllToAll && !r_.pair_bytes.empty()) {
      for (uint32_t i = 0; i < r_.pair_bytes.size(); ++i) {
        if (i % (n_ + 1) != 0 && r_.pair_bytes[i] != r_.pair_bytes[1]) {
          throw Error("msccl", Argument{"demand"},
                      "a non-uniform All-to-All (alltoallv) cannot be written: MSCCL XML cuts every buffer into "
                      "equal chunks");
        }
      }
    }
    order_transfers();
    assign_channels();
    assign_scratch();
    for (uint32_t i : order_)
      bundled_ ? add_bundle_transfer(i) : add_transfer(i);
    add_own_chunks();
  }

  MscclXmlShape shape() const {
    MscclXmlShape out;
    out.ranks = n_;
    for (const auto& blocks : gpus_) {
      out.thread_blocks += blocks.size();
      out.max_thread_blocks = std::max<uint64_t>(out.max_thread_blocks, blocks.size());
      for (const ThreadBlock& b : blocks) {
        out.steps += b.steps.size();
        out.max_steps = std::max<uint64_t>(out.max_steps, b.steps.size());
      }
    }
    return out;
  }

  // Calls sink(text) for every piece of the XML in order; the same pieces are counted and written, so the
  // predicted size is the written size.
  template <class Sink>
  void render(const std::string& name, Sink&& sink) const {
    const auto [in_chunks, out_chunks] = chunk_counts();
    const uint32_t per_loop = r_.kind == CollectiveKind::Broadcast || r_.kind == CollectiveKind::Reduce
                                  ? r_.chunks_per_npu
                                  : n_ * r_.chunks_per_npu;
    sink(fmt::format(
        "<algo name=\"{}\" proto=\"Simple\" nchannels=\"{}\" nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" "
        "inplace=\"{}\" outofplace=\"{}\" minBytes=\"0\" maxBytes=\"{}\">\n",
        xml_escape(name), channels_, per_loop, n_, coll_name(r_.kind), in_place() ? 1 : 0, in_place() ? 0 : 1,
        int64_t{1} << 62));
    fmt::memory_buffer line;
    for (uint32_t g = 0; g < n_; ++g) {
      sink(fmt::format("  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\">\n", g, in_chunks, out_chunks,
                       scratch_chunks_.empty() ? 0 : scratch_chunks_[g]));
      for (size_t t = 0; t < gpus_[g].size(); ++t) {
        const ThreadBlock& b = gpus_[g][t];
        sink(fmt::format("    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\">\n", t, b.send, b.recv, b.chan));
        for (size_t s = 0; s < b.steps.size(); ++s) {
          const Step& st = b.steps[s];
          const auto [sb, so, db, dof] = st.type == kCopy ? std::make_tuple("i", st.op, "o", st.op)
                                         : st.off >= 0    ? bundle_buffers(st)
                                                          : buffers(st.op);
          line.clear();
          fmt::format_to(std::back_inserter(line),
                         "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" "
                         "cnt=\"{}\" depid=\"{}\" deps=\"{}\" hasdep=\"{}\"/>\n",
                         s, st.type, sb, so, db, dof, st.cnt, st.dep_tb, st.dep_step, st.has_dep ? 1 : 0);
          sink(std::string_view(line.data(), line.size()));
        }
        sink(std::string_view("    </tb>\n"));
      }
      sink(std::string_view("  </gpu>\n"));
    }
    sink(std::string_view("</algo>\n"));
  }

 private:
  uint32_t rank(NodeId node) const {
    const auto it = rank_.find(node.value);
    if (it == rank_.end()) {
      throw Error(
          "msccl", "schedule",
          fmt::format("node {} is a switch or outside the group; MSCCL XML needs GPU-to-GPU transfers", node.value));
    }
    return it->second;
  }

  // The receive steps (GPU, tb, step) a send of op i must wait for: receives of its chunk at its source, through
  // local steps too.
  void collect_deps(OpId op, std::vector<std::pair<int64_t, int64_t>>& out) const {
    for (OpId d : s_.deps(op)) {
      if (s_.chunk(d) != s_.chunk(op))
        continue;
      if (!s_.is_transfer(d)) {
        collect_deps(d, out);
      } else if (s_.dst(d) == s_.src(op)) {
        out.push_back(recv_step_[d.value]);
      }
    }
  }

  // The order steps are laid out in, and the send each send waits for (previous_send_). MSCCL orders steps only
  // within a thread block, so whatever must keep the synthesized order across thread blocks gets a dependency,
  // which the layout adds only where the previous send sits in another thread block:
  // - a GPU pair's transfers beyond 256 steps move to a new channel, a thread block of its own: each waits for the
  //   pair's previous one, so the link still carries them in the synthesized order, one at a time;
  // - through switches with order_switch_sends, each send waits for the GPU's previous send into the same fabric
  //   link, to any peer: without it the runtime starts a GPU's sends to different peers together and they share
  //   the link in an order (or a bandwidth split) the synthesizer never planned.
  // Steps are laid out in the schedule's own (topological) order, or with ordered switch sends by synthesized start
  // time: a dependency waits for the step to finish, so every dependency then started earlier and the step graph
  // stays acyclic.
  void order_transfers() {
    for (uint32_t i = 0; i < s_.size(); ++i) {
      if (s_.is_transfer(OpId{i}))
        order_.push_back(i);
    }
    previous_send_.assign(s_.size(), kNoOp);
    const bool by_fabric_link = switched_ && order_switch_sends_;
    if (by_fabric_link) {
      std::stable_sort(order_.begin(), order_.end(),
                       [this](uint32_t a, uint32_t b) { return r_.ops[a].start < r_.ops[b].start; });
    }
    std::unordered_map<uint64_t, uint32_t> last;
    for (uint32_t i : order_) {
      const OpId op{i};
      const uint64_t key =
          by_fabric_link ? uint64_t{r_.ops[i].link.value} : (uint64_t{rank(s_.src(op))} << 32) | rank(s_.dst(op));
      const auto [it, fresh] = last.try_emplace(key, i);
      if (!fresh) {
        previous_send_[i] = it->second;
        it->second = i;
      }
    }
  }

  // Per link, the send-side cost of each transfer (1 + extra dependencies) decides where a new channel starts, so
  // both ends of the link place each transfer on the same channel.
  void assign_channels() {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> used, chan;
    channel_.assign(s_.size(), 0);
    for (uint32_t i : order_) {
      const OpId op{i};
      uint32_t deps = 0, runs = 1;  // bundled: a send and a receive step per run of consecutive units
      if (bundled_)
        bundle_steps(op, deps, runs);
      else
        count_deps(op, deps);
      // A step carries one dependency; each further one costs a nop step. The previous send is another thread
      // block's when it went to another peer, or (checked below) when this transfer opens a new channel.
      const uint32_t previous = previous_send_[i];
      auto cost = [&](bool ordered) { return runs + (deps + ordered > 1 ? deps + ordered - 1 : 0); };
      const auto key = std::make_pair(rank(s_.src(op)), rank(s_.dst(op)));
      uint32_t steps = cost(previous != kNoOp && s_.dst(OpId{previous}) != s_.dst(op));
      if (used[key] + steps > kMscclMaxSteps) {
        ++chan[key];
        used[key] = 0;
        steps = cost(previous != kNoOp);
      }
      used[key] += steps;
      channel_[i] = chan[key];
      channels_ = std::max(channels_, chan[key] + 1);
    }
  }

  // All-to-All: each transfer that ends at a GPU other than its chunk's destination takes the next scratch slot
  // there (slots are never reused: the schedule's order is not the GPU's program order across thread blocks), and
  // each transfer remembers the transfer that brought its chunk to its source.
  void assign_scratch() {
    if (r_.kind != CollectiveKind::AllToAll)
      return;
    scratch_.assign(s_.size(), 0);
    arrived_by_.assign(s_.size(), 0);
    scratch_chunks_.assign(n_, 0);
    for (uint32_t i = 0; i < s_.size(); ++i) {
      const OpId op{i};
      if (!s_.is_transfer(op))
        continue;
      const uint32_t c = s_.chunk(op), to = rank(s_.dst(op));
      if (to != c % n_)
        scratch_[i] = scratch_chunks_[to]++;
      for (OpId d : s_.deps(op)) {
        if (s_.is_transfer(d) && s_.chunk(d) == c && s_.dst(d) == s_.src(op))
          arrived_by_[i] = d.value;
      }
    }
  }

  void count_deps(OpId op, uint32_t& count) const {
    for (OpId d : s_.deps(op)) {
      if (s_.chunk(d) != s_.chunk(op))
        continue;
      if (!s_.is_transfer(d))
        count_deps(d, count);
      else if (s_.dst(d) == s_.src(op))
        ++count;
    }
  }

  int64_t tb(uint32_t gpu, int64_t send, int64_t recv, uint32_t chan) {
    auto& ids = tb_ids_[gpu];
    const auto key = std::make_tuple(send, recv, chan);
    const auto it = ids.find(key);
    if (it != ids.end())
      return it->second;
    const int64_t id = static_cast<int64_t>(gpus_[gpu].size());
    if (id >= kMscclMaxThreadBlocks) {
      throw Error(
          "msccl", "thread blocks",
          fmt::format("GPU {} needs more than {} thread blocks (MSCCL_MAX_NUM_THREAD_BLOCKS): MSCCL runs one "
                      "per (peer, direction, channel){}",
                      gpu, kMscclMaxThreadBlocks,
                      switched_ ? ", and through a switch every GPU a chunk reaches is a peer of its own" : ""));
    }
    gpus_[gpu].push_back({send, recv, chan, {}});
    ids[key] = id;
    return id;
  }

  void add_transfer(uint32_t i) {
    const OpId op{i};
    const uint32_t a = rank(s_.src(op));
    const uint32_t b = rank(s_.dst(op));
    const uint32_t c = s_.chunk(op);
    std::vector<std::pair<int64_t, int64_t>> deps;
    collect_deps(op, deps);
    place(i, a, b, std::move(deps), {{"s", c, -1, -1, false, i}},
          {{r_.ops[i].reduce ? "rrc" : "r", c, -1, -1, false, i}});
  }

  // Lays out transfer i from GPU a to GPU b: `sends` in a's thread block for (b, channel), the first of them
  // carrying the last of `deps` and each other dependency a nop step before it (plus the pair's previous send,
  // where that sits in another thread block), and `receives` in b's thread block for (a, channel).
  void place(uint32_t i, uint32_t a, uint32_t b, std::vector<std::pair<int64_t, int64_t>> deps, std::vector<Step> sends,
             const std::vector<Step>& receives) {
    const int64_t send_tb = tb(a, b, -1, channel_[i]);
    if (previous_send_[i] != kNoOp && send_step_[previous_send_[i]].first != send_tb)
      deps.push_back(send_step_[previous_send_[i]]);
    auto& send_steps = gpus_[a][send_tb].steps;
    for (size_t k = 0; k + 1 < deps.size(); ++k) {
      send_steps.push_back({"nop", sends.front().chunk, deps[k].first, deps[k].second, false, i});
      mark_dependency(a, deps[k]);
    }
    if (!deps.empty()) {
      sends.front().dep_tb = deps.back().first;
      sends.front().dep_step = deps.back().second;
      mark_dependency(a, deps.back());
    }
    send_steps.insert(send_steps.end(), sends.begin(), sends.end());
    send_step_[i] = {send_tb, static_cast<int64_t>(send_steps.size() - 1)};
    const int64_t recv_tb = tb(b, -1, a, channel_[i]);
    auto& recv_steps = gpus_[b][recv_tb].steps;
    recv_steps.insert(recv_steps.end(), receives.begin(), receives.end());
    recv_step_[i] = {recv_tb, static_cast<int64_t>(recv_steps.size() - 1)};
  }

  // Out of place (All-to-All), a GPU's chunks for itself go from its input to its output by a local copy, in a
  // thread block that neither sends nor receives.
  void add_own_chunks() {
    if (in_place())
      return;
    const uint32_t k = r_.chunks_per_npu;
    for (uint32_t g = 0; g < n_; ++g) {
      const int64_t local = tb(g, -1, -1, 0);
      for (uint32_t j = 0; j < k; ++j)
        gpus_[g][local].steps.push_back({kCopy, 0, -1, -1, false, g * k + j});
    }
  }

  void mark_dependency(uint32_t gpu, std::pair<int64_t, int64_t> step) {
    gpus_[gpu][step.first].steps[step.second].has_dep = true;
  }

  // Buffer and offset of a chunk at the sender (src) and receiver (dst).
  std::tuple<const char*, uint32_t, const char*, uint32_t> buffers(uint32_t op) const {
    const uint32_t c = s_.chunk(OpId{op});
    const uint32_t k = r_.chunks_per_npu;
    switch (r_.kind) {
      case CollectiveKind::AllGather: {
        const uint32_t off = (c % n_) * k + c / n_;
        return {"o", off, "o", off};
      }
      case CollectiveKind::ReduceScatter:
      case CollectiveKind::AllReduce: {
        const uint32_t off = (c % n_) * k + c / n_;
        return {"i", off, "i", off};
      }
      case CollectiveKind::Broadcast:
        return {"o", c, "o", c};
      case CollectiveKind::Reduce:
        return {"i", c, "i", c};
      case CollectiveKind::AllToAll: {
        // A multi-hop chunk waits at each GPU on its path in a scratch slot of its own (assign_scratch).
        const uint32_t j = c / (n_ * n_), s = (c / n_) % n_, d = c % n_;
        const bool first = rank(s_.src(OpId{op})) == s, last = rank(s_.dst(OpId{op})) == d;
        return {first ? "i" : "s", first ? d * k + j : scratch_[arrived_by_[op]], last ? "o" : "s",
                last ? s * k + j : scratch_[op]};
      }
    }
    return {"o", c, "o", c};
  }

  // All-to-All is out of place: in place, a GPU that receives a peer's chunk into output chunk s*k + j would
  // overwrite input chunk s*k + j, which it may not have sent yet (the chunk destined for peer s).
  bool in_place() const { return r_.kind != CollectiveKind::AllToAll; }

  std::pair<uint32_t, uint32_t> chunk_counts() const {
    const uint32_t k = r_.chunks_per_npu;
    switch (r_.kind) {
      case CollectiveKind::AllGather:
        return {k, n_ * k};
      case CollectiveKind::ReduceScatter:
        return {n_ * k, k};
      case CollectiveKind::Broadcast:
      case CollectiveKind::Reduce:
        return {k, k};
      default:
        return {n_ * k, n_ * k};
    }
  }

  // ---- Bundled schedules (dimension-wise, SynthResult::bundle_units; unit id = buffer chunk): each run of
  // consecutive units of a transfer is one send and one receive step with cnt = its length; the first send waits for
  // the receives of every transfer into the sender the op depends on (through local steps), extra ones on nops.

  std::vector<std::pair<uint32_t, uint32_t>> runs(uint32_t op) const {
    std::vector<std::pair<uint32_t, uint32_t>> out;  // (first unit, count)
    for (uint32_t x : op_units(r_, op)) {
      if (!out.empty() && out.back().first + out.back().second == x)
        ++out.back().second;
      else
        out.push_back({x, 1});
    }
    return out;
  }

  void bundle_sources(OpId op, NodeId at, std::vector<OpId>& out) const {
    for (OpId d : s_.deps(op)) {
      if (!s_.is_transfer(d) && s_.src(d) == at)
        bundle_sources(d, at, out);
      else if (s_.is_transfer(d) && s_.dst(d) == at)
        out.push_back(d);
    }
  }

  std::vector<OpId> bundle_sources(OpId op) const {
    std::vector<OpId> out;
    bundle_sources(op, s_.src(op), out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void bundle_steps(OpId op, uint32_t& deps, uint32_t& steps) const {
    deps = static_cast<uint32_t>(bundle_sources(op).size());
    steps = static_cast<uint32_t>(runs(op.value).size());
  }

  void add_bundle_transfer(uint32_t i) {
    const OpId op{i};
    const uint32_t a = rank(s_.src(op)), b = rank(s_.dst(op));
    std::vector<std::pair<int64_t, int64_t>> deps;
    for (OpId d : bundle_sources(op))
      deps.push_back(recv_step_[d.value]);
    std::vector<Step> sends, receives;
    for (const auto& [first, count] : runs(i)) {
      sends.push_back({"s", 0, -1, -1, false, i, first, count});
      receives.push_back({r_.ops[i].reduce ? "rrc" : "r", 0, -1, -1, false, i, first, count});
    }
    place(i, a, b, std::move(deps), std::move(sends), receives);
  }

  std::tuple<const char*, uint32_t, const char*, uint32_t> bundle_buffers(const Step& st) const {
    const char* buf = r_.kind == CollectiveKind::AllGather ? "o" : "i";
    return {buf, static_cast<uint32_t>(st.off), buf, static_cast<uint32_t>(st.off)};
  }

  const SynthResult& r_;
  const Schedule& s_;
  uint32_t n_;
  bool switched_;            // switch paths were collapsed into GPU-to-GPU transfers (switch_collapse.hpp)
  bool order_switch_sends_;  // MscclXmlOptions::order_switch_sends
  bool bundled_;             // ops carry bundles of units (bundle_units)
  std::unordered_map<uint32_t, uint32_t> rank_;
  std::vector<std::vector<ThreadBlock>> gpus_;
  std::vector<std::map<std::tuple<int64_t, int64_t, uint32_t>, int64_t>> tb_ids_ =
      std::vector<std::map<std::tuple<int64_t, int64_t, uint32_t>, int64_t>>(n_);
  std::vector<std::pair<int64_t, int64_t>> send_step_, recv_step_;
  std::vector<uint32_t> channel_;
  std::vector<uint32_t> order_;          // transfers in layout order (order_transfers)
  std::vector<uint32_t> previous_send_;  // through switches: the GPU's previous transfer into the same link
  uint32_t channels_ = 1;
  std::vector<uint32_t> scratch_, arrived_by_, scratch_chunks_;  // All-to-All relaying (assign_scratch)
};

MscclXml::MscclXml(const SynthResult& result, std::string name, MscclXmlOptions options) : name_(std::move(name)) {
  if (passes_through_switches(result))
    collapsed_ = std::make_unique<SynthResult>(collapse_switches(result));
  writer_ =
      std::make_unique<XmlWriter>(collapsed_ ? *collapsed_ : result, collapsed_ != nullptr, options.order_switch_sends);
  writer_->build();
  shape_ = writer_->shape();
  writer_->render(name_, [this](std::string_view text) { shape_.bytes += text.size(); });
}

MscclXml::~MscclXml() = default;

void MscclXml::write(std::ostream& out) const {
  writer_->render(name_,
                  [&out](std::string_view text) { out.write(text.data(), static_cast<std::streamsize>(text.size())); });
}

void MscclXml::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw Error(path, Argument{"out"}, "cannot open for writing");
  write(out);
  out.flush();
  if (!out)
    throw Error(path, Argument{"out"}, "write failed (disk full?)");
}

std::string msccl_xml(const SynthResult& result, const std::string& name, MscclXmlOptions options) {
  std::ostringstream out;
  MscclXml(result, name, options).write(out);
  return out.str();
}

std::optional<std::string> msccl_size_warning(const MscclXmlShape& shape, uint64_t threshold_bytes) {
  if (shape.bytes <= threshold_bytes)
    return std::nullopt;
  const uint64_t limit = uint64_t{kMscclMaxSteps} * kMscclMaxThreadBlocks;
  return fmt::format(
      "the MSCCL XML will be {:.1f} MB: {} steps in {} thread blocks on {} ranks (up to {} steps per thread block, "
      "{} thread blocks per rank), one line per step; MSCCL's runtime allows at most {} steps per thread block and "
      "{} thread blocks per rank ({} steps per rank); fewer --chunks makes it "
      "smaller",
      static_cast<double>(shape.bytes) / 1e6, shape.steps, shape.thread_blocks, shape.ranks, shape.max_steps,
      shape.max_thread_blocks, kMscclMaxSteps, kMscclMaxThreadBlocks, limit);
}

}  // namespace chorus
