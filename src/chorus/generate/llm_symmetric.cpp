// The LLM training iteration as a symmetric workload (see llm_symmetric.hpp).
#include "chorus/generate/llm_symmetric.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/workload/symmetric_workload.hpp"

namespace chorus {

namespace {

// One class per pipeline stage and CP index (each a run of tp consecutive ranks per DP index), so that every
// point-to-point peer of a representative (pipeline neighbours, CP ring neighbours) is a representative too.
std::vector<RankClass> rank_classes(const LlmTrainingSpec& spec, std::vector<uint32_t>& class_of) {
  const uint32_t npus = spec.dp * spec.tp * spec.pp * spec.cp;
  std::vector<RankClass> classes(size_t{spec.pp} * spec.cp);
  class_of.resize(npus);
  for (uint32_t p = 0; p < spec.pp; ++p) {
    for (uint32_t c = 0; c < spec.cp; ++c) {
      RankClass& k = classes[p * spec.cp + c];
      k.name = spec.cp == 1 ? fmt::format("stage {}", p) : fmt::format("stage {}, cp {}", p, c);
      k.trace = fmt::format("class.{}.et", p * spec.cp + c);
      k.representative = rank_of(spec, {0, 0, p, c});
    }
  }
  for (uint32_t rank = 0; rank < npus; ++rank) {
    const RankCoords at = rank_coords(spec, rank);
    const uint32_t k = at.pp * spec.cp + at.cp;
    class_of[rank] = k;
    std::vector<RankRange>& runs = classes[k].ranks;
    if (!runs.empty() && runs.back().start + runs.back().count == rank) {
      ++runs.back().count;
    } else {
      runs.push_back(RankRange{rank, 1, 1});
    }
    ++classes[k].size;
  }
  return classes;
}

// The copies of `group` in the same class: groups whose members are its members shifted by one offset.
GroupReplicas replicas_of(const NamedGroup& group, const std::vector<NamedGroup>& all,
                          const std::vector<uint32_t>& class_of) {
  std::vector<uint32_t> offsets;
  for (const NamedGroup& other : all) {
    if (other.npus.size() != group.npus.size() || other.npus[0] < group.npus[0] ||
        class_of[other.npus[0]] != class_of[group.npus[0]])
      continue;
    const uint32_t offset = other.npus[0] - group.npus[0];
    bool shifted = true;
    for (size_t i = 0; i < group.npus.size() && shifted; ++i)
      shifted = other.npus[i] == group.npus[i] + offset;
    if (shifted)
      offsets.push_back(offset);
  }
  // Groups with the same members (an EP group that is the whole DP group) give an offset twice.
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  GroupReplicas r{static_cast<uint32_t>(offsets.size()), offsets.size() > 1 ? offsets[1] : 0};
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] != i * r.stride) {
      throw Error("", Argument{"symmetric"},
                  fmt::format("the copies of group '{}' are not evenly spaced (offset {} after {}); this "
                              "parallel layout cannot be written as a symmetric workload",
                              group.name, offsets[i], i == 0 ? 0 : offsets[i - 1]));
    }
  }
  return r;
}

}  // namespace

std::string write_llm_training_symmetric(const std::string& directory, const LlmTrainingSpec& spec, bool gzip) {
  validate(spec);
  std::vector<uint32_t> class_of;
  const std::vector<RankClass> classes = rank_classes(spec, class_of);
  std::vector<chakra::ChakraTrace> traces;
  std::set<std::string> used;
  for (const RankClass& c : classes) {
    traces.push_back(llm_rank_trace(spec, c.representative));
    for (const chakra::TraceNode& n : traces.back().nodes) {
      if (n.type == chakra::NodeType::CommColl)
        used.insert(n.pg_name);
    }
  }
  const std::vector<NamedGroup> all = llm_comm_groups(spec);
  std::vector<SymmetricGroup> groups;
  for (const NamedGroup& g : all) {
    if (used.contains(g.name))
      groups.push_back(SymmetricGroup{g.name, g.npus, replicas_of(g, all, class_of)});
  }
  return write_symmetric_workload(directory, spec.dp * spec.tp * spec.pp * spec.cp, classes, traces, groups, gzip);
}

}  // namespace chorus
