// MSCCL XML reader (see read_msccl.hpp): pugixml's DOM, copied into compact arrays one GPU at a time.
#include "chorus/msccl/read_msccl.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "chorus/core/error.hpp"
#include "chorus/core/limits.hpp"
#include "chorus/io/text_file.hpp"

namespace chorus {

namespace {

// Chunk counts and offsets above this are refused before anything is allocated for them.
constexpr uint64_t kMaxChunks = uint64_t{1} << 24;

struct Reader {
  const std::string& file;

  [[noreturn]] void fail(const std::string& where, const std::string& message) const {
    throw Error(file, where, message);
  }

  std::string_view text(const pugi::xml_node& node, const char* name, const std::string& where) const {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a)
      fail(where.empty() ? name : where + ": " + name, "missing");
    return a.value();
  }

  // An integer in [lo, hi]; `field()` names it in errors (built only then).
  template <class Field>
  int64_t value(std::string_view t, Field&& field, int64_t lo, int64_t hi) const {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || t.empty())
      fail(field(), fmt::format("'{}' is not an integer", t));
    if (v < lo || v > hi)
      fail(field(), fmt::format("is {}; must be {} to {}", v, lo, hi));
    return v;
  }

  int64_t integer(const pugi::xml_node& node, const char* name, const std::string& where, int64_t lo, int64_t hi,
                  std::optional<int64_t> fallback = std::nullopt) const {
    if (fallback && !node.attribute(name))
      return *fallback;
    return value(
        text(node, name, where), [&] { return where.empty() ? std::string(name) : where + ": " + name; }, lo, hi);
  }
};

std::optional<MscclStepType> step_type(std::string_view t) {
  using T = MscclStepType;
  static constexpr std::pair<std::string_view, T> kTypes[] = {{"s", T::Send},
                                                              {"r", T::Recv},
                                                              {"rcs", T::RecvCopySend},
                                                              {"rrs", T::RecvReduceSend},
                                                              {"rrc", T::RecvReduceCopy},
                                                              {"rrcs", T::RecvReduceCopySend},
                                                              {"cpy", T::Copy},
                                                              {"re", T::Reduce},
                                                              {"nop", T::Nop}};
  for (const auto& [name, type] : kTypes) {
    if (t == name)
      return type;
  }
  return std::nullopt;
}

std::optional<MscclBuffer> buffer(std::string_view t) {
  if (t == "i")
    return MscclBuffer::Input;
  if (t == "o")
    return MscclBuffer::Output;
  if (t == "s")
    return MscclBuffer::Scratch;
  return std::nullopt;
}

uint32_t chunks_of(const MscclGpu& gpu, MscclBuffer b) {
  return b == MscclBuffer::Input ? gpu.i_chunks : b == MscclBuffer::Output ? gpu.o_chunks : gpu.s_chunks;
}

// The steps read srcbuf locally (s, rrs, rrc, rrcs, cpy, re) and write dstbuf locally (r, rcs, rrc, rrcs, cpy,
// re); the other buffer fields of a step describe the peer's side and are not checked here.
bool reads_src(MscclStepType t) {
  return t == MscclStepType::Send || msccl_reduces(t) || t == MscclStepType::Copy;
}
bool writes_dst(MscclStepType t) {
  return t == MscclStepType::Recv || t == MscclStepType::RecvCopySend || t == MscclStepType::RecvReduceCopy ||
         t == MscclStepType::RecvReduceCopySend || t == MscclStepType::Copy || t == MscclStepType::Reduce;
}

void read_header(const Reader& r, const pugi::xml_node& algo, MscclProgram& p) {
  p.name = algo.attribute("name").value();
  p.proto = algo.attribute("proto").value();
  p.coll = std::string(r.text(algo, "coll", "algo"));
  p.ngpus = static_cast<uint32_t>(r.integer(algo, "ngpus", "algo", 1, static_cast<int64_t>(limits::kMaxNpus)));
  p.nchannels = static_cast<uint32_t>(r.integer(algo, "nchannels", "algo", 1, 65536, 1));
  p.nchunksperloop =
      static_cast<uint32_t>(r.integer(algo, "nchunksperloop", "algo", 1, static_cast<int64_t>(kMaxChunks)));
  p.inplace = r.integer(algo, "inplace", "algo", 0, 1, 0) == 1;
  p.outofplace = r.integer(algo, "outofplace", "algo", 0, 1, p.inplace ? 0 : 1) == 1;
  p.root = static_cast<uint32_t>(r.integer(algo, "root", "algo", 0, p.ngpus - 1, 0));
  // msccl-tools names collectives without underscores ("allreduce"); chorus's parser takes both forms.
  if (p.coll == "allreduce")
    p.kind = CollectiveKind::AllReduce;
  else if (p.coll == "allgather")
    p.kind = CollectiveKind::AllGather;
  else if (p.coll == "reduce_scatter" || p.coll == "reducescatter")
    p.kind = CollectiveKind::ReduceScatter;
  else if (p.coll == "alltoall")
    p.kind = CollectiveKind::AllToAll;
  else
    p.kind = parse_collective_kind(p.coll);
}

// A step's attributes, collected in one pass over them (a million steps: looking each name up costs more than
// parsing the file).
struct StepAttributes {
  const char* s = nullptr;
  const char* type = nullptr;
  const char* srcbuf = nullptr;
  const char* srcoff = nullptr;
  const char* dstbuf = nullptr;
  const char* dstoff = nullptr;
  const char* cnt = nullptr;
  const char* depid = nullptr;
  const char* deps = nullptr;

  explicit StepAttributes(const pugi::xml_node& node) {
    for (pugi::xml_attribute a = node.first_attribute(); a; a = a.next_attribute()) {
      const std::string_view name = a.name();
      const char*& slot = name == "s"        ? s
                          : name == "type"   ? type
                          : name == "srcbuf" ? srcbuf
                          : name == "srcoff" ? srcoff
                          : name == "dstbuf" ? dstbuf
                          : name == "dstoff" ? dstoff
                          : name == "cnt"    ? cnt
                          : name == "depid"  ? depid
                          : name == "deps"   ? deps
                                             : ignored_;
      slot = a.value();
    }
  }

 private:
  const char* ignored_ = nullptr;
};

void read_step(const Reader& r, const pugi::xml_node& node, const MscclGpu& gpu, uint32_t expected,
               const std::string& where_tb, MscclStep& step) {
  const StepAttributes at(node);
  // The error location, built only when there is an error.
  const auto field = [&](const char* name) { return fmt::format("{} step {}: {}", where_tb, expected, name); };
  const auto number = [&](const char* value, const char* name, int64_t lo, int64_t hi,
                          std::optional<int64_t> fallback = std::nullopt) {
    if (value == nullptr) {
      if (!fallback)
        r.fail(field(name), "missing");
      return *fallback;
    }
    return r.value(
        value, [&] { return field(name); }, lo, hi);
  };
  const int64_t s = number(at.s, "s", 0, INT32_MAX);
  if (s != expected)
    r.fail(field("s"), fmt::format("is {}; steps of a thread block must be numbered 0, 1, 2, ... in order", s));
  if (at.type == nullptr)
    r.fail(field("type"), "missing");
  const auto type = step_type(at.type);
  if (!type) {
    r.fail(field("type"),
           fmt::format("unknown step type '{}'; expected s, r, rcs, rrs, rrc, rrcs, cpy, re or nop", at.type));
  }
  step.type = *type;
  step.count = static_cast<uint32_t>(number(at.cnt, "cnt", 1, static_cast<int64_t>(kMaxChunks), 1));
  const auto read_buffer = [&](const char* buf_text, const char* off_text, const char* buf_name, const char* off_name,
                               bool local, MscclBuffer& buf, uint32_t& off) {
    if (!local && buf_text == nullptr)
      return;  // the peer's side or unused (nop): optional
    if (buf_text == nullptr)
      r.fail(field(buf_name), "missing");
    const auto b = buffer(buf_text);
    if (!b)
      r.fail(field(buf_name), fmt::format("unknown buffer '{}'; expected i, o or s", buf_text));
    buf = *b;
    off = static_cast<uint32_t>(number(off_text, off_name, 0, static_cast<int64_t>(kMaxChunks)));
    const uint32_t size = chunks_of(gpu, buf);
    if (local && uint64_t{off} + step.count > size) {
      r.fail(field(off_name), fmt::format("chunks {} to {} of buffer '{}' are out of range; the gpu has {} (cnt {})",
                                          off, uint64_t{off} + step.count - 1, buf_text, size, step.count));
    }
  };
  read_buffer(at.srcbuf, at.srcoff, "srcbuf", "srcoff", reads_src(step.type), step.src_buf, step.src_off);
  read_buffer(at.dstbuf, at.dstoff, "dstbuf", "dstoff", writes_dst(step.type), step.dst_buf, step.dst_off);
  step.dep_tb = static_cast<int32_t>(number(at.depid, "depid", -1, INT32_MAX, -1));
  step.dep_step = static_cast<int32_t>(number(at.deps, "deps", -1, INT32_MAX, -1));
  if ((step.dep_tb < 0) != (step.dep_step < 0)) {
    r.fail(field("deps"),
           fmt::format("depid is {} and deps is {}; both are -1 or neither", step.dep_tb, step.dep_step));
  }
}

void read_tb(const Reader& r, const pugi::xml_node& node, const MscclProgram& p, const MscclGpu& gpu,
             const std::string& where, MscclThreadBlock& tb, std::vector<MscclStep>& steps) {
  tb.send = static_cast<int32_t>(r.integer(node, "send", where, -1, p.ngpus - 1));
  tb.recv = static_cast<int32_t>(r.integer(node, "recv", where, -1, p.ngpus - 1));
  tb.chan = static_cast<uint32_t>(r.integer(node, "chan", where, 0, p.nchannels - 1, 0));
  const int32_t self = static_cast<int32_t>(&gpu - p.gpus.data());
  if (tb.send == self || tb.recv == self)
    r.fail(where + (tb.send == self ? ": send" : ": recv"), fmt::format("is {}, the gpu itself", self));
  tb.first_step = static_cast<uint32_t>(steps.size());
  uint32_t s = 0;
  for (const pugi::xml_node& child : node.children("step")) {
    MscclStep step;
    read_step(r, child, gpu, s, where, step);
    const auto at = [&] { return fmt::format("{} step {}", where, s); };
    if (msccl_sends(step.type) && tb.send < 0)
      r.fail(at() + ": type",
             fmt::format("'{}' sends, but the thread block has send=\"-1\"", msccl_step_name(step.type)));
    if (msccl_receives(step.type) && tb.recv < 0) {
      r.fail(at() + ": type",
             fmt::format("'{}' receives, but the thread block has recv=\"-1\"", msccl_step_name(step.type)));
    }
    if (steps.size() >= UINT32_MAX / 2 - 1)
      r.fail(at(), "too many steps");
    steps.push_back(step);
    ++s;
  }
  tb.step_count = s;
}

// Dependencies name a step of a thread block of the same GPU; checked once all its thread blocks are read.
void check_dependencies(const Reader& r, const MscclProgram& p, uint32_t g) {
  const MscclGpu& gpu = p.gpus[g];
  for (uint32_t t = 0; t < gpu.tb_count; ++t) {
    const MscclThreadBlock& tb = p.tbs[gpu.first_tb + t];
    for (uint32_t s = 0; s < tb.step_count; ++s) {
      const MscclStep& step = p.steps[tb.first_step + s];
      if (step.dep_tb < 0)
        continue;
      const std::string where = fmt::format("gpu {} tb {} step {}", g, t, s);
      if (static_cast<uint32_t>(step.dep_tb) >= gpu.tb_count) {
        r.fail(where + ": depid",
               fmt::format("is {}; gpu {} has {} thread blocks (a dangling dependency)", step.dep_tb, g, gpu.tb_count));
      }
      const MscclThreadBlock& dep = p.tbs[gpu.first_tb + step.dep_tb];
      if (static_cast<uint32_t>(step.dep_step) >= dep.step_count) {
        r.fail(where + ": deps", fmt::format("is {}; tb {} of gpu {} has {} steps (a dangling dependency)",
                                             step.dep_step, step.dep_tb, g, dep.step_count));
      }
    }
  }
}

void read_gpu(const Reader& r, const pugi::xml_node& node, uint32_t id, MscclProgram& p) {
  const std::string where = fmt::format("gpu {}", id);
  MscclGpu& gpu = p.gpus[id];
  gpu.i_chunks = static_cast<uint32_t>(r.integer(node, "i_chunks", where, 0, static_cast<int64_t>(kMaxChunks)));
  gpu.o_chunks = static_cast<uint32_t>(r.integer(node, "o_chunks", where, 0, static_cast<int64_t>(kMaxChunks)));
  gpu.s_chunks = static_cast<uint32_t>(r.integer(node, "s_chunks", where, 0, static_cast<int64_t>(kMaxChunks), 0));
  // Thread blocks may appear in any order; their ids must be 0..n-1.
  std::vector<std::pair<int64_t, pugi::xml_node>> tbs;
  for (const pugi::xml_node& child : node.children("tb"))
    tbs.emplace_back(r.integer(child, "id", where + " tb", 0, INT32_MAX), child);
  std::sort(tbs.begin(), tbs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  gpu.first_tb = static_cast<uint32_t>(p.tbs.size());
  gpu.tb_count = static_cast<uint32_t>(tbs.size());
  for (size_t t = 0; t < tbs.size(); ++t) {
    if (tbs[t].first != static_cast<int64_t>(t)) {
      r.fail(fmt::format("{} tb {}: id", where, tbs[t].first),
             t > 0 && tbs[t].first == tbs[t - 1].first
                 ? "appears twice"
                 : fmt::format("thread block ids of a gpu must be 0 to {}; {} is missing", tbs.size() - 1, t));
    }
    MscclThreadBlock tb;
    read_tb(r, tbs[t].second, p, gpu, fmt::format("{} tb {}", where, t), tb, p.steps);
    p.tbs.push_back(tb);
  }
  check_dependencies(r, p, id);
}

}  // namespace

MscclProgram parse_msccl_xml(std::string_view text, const std::string& file) {
  const Reader r{file};
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_minimal);
  if (!parsed) {
    const size_t offset = std::min<size_t>(static_cast<size_t>(parsed.offset), text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
    r.fail(fmt::format("line {}", line), fmt::format("xml syntax error: {}", parsed.description()));
  }
  const pugi::xml_node algo = doc.child("algo");
  if (!algo)
    r.fail("algo", "missing; an MSCCL XML file has one <algo> element at the top");
  MscclProgram p;
  p.file = file;
  read_header(r, algo, p);
  std::vector<std::pair<int64_t, pugi::xml_node>> gpus;
  for (const pugi::xml_node& child : algo.children("gpu")) {
    gpus.emplace_back(r.integer(child, "id", "gpu", 0, p.ngpus - 1), child);
  }
  std::sort(gpus.begin(), gpus.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t g = 0; g < gpus.size(); ++g) {
    if (gpus[g].first != static_cast<int64_t>(g)) {
      r.fail(fmt::format("gpu {}: id", gpus[g].first),
             g > 0 && gpus[g].first == gpus[g - 1].first ? "appears twice" : fmt::format("gpu {} is missing", g));
    }
  }
  if (gpus.size() != p.ngpus) {
    r.fail("algo: ngpus", fmt::format("is {}, but the file has {} <gpu> elements", p.ngpus, gpus.size()));
  }
  p.gpus.resize(p.ngpus);
  for (size_t g = 0; g < gpus.size(); ++g)
    read_gpu(r, gpus[g].second, static_cast<uint32_t>(g), p);
  return p;
}

MscclProgram read_msccl_xml(const std::string& path) {
  return parse_msccl_xml(read_text_file(path), path);
}

}  // namespace chorus
