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

// The ranks of each stage as runs of consecutive ranks (one run per stage in Megatron's order).
std::vector<RankClass> stage_classes(const LlmTrainingSpec& spec, std::vector<uint32_t>& stage_of) {
  const uint32_t npus = spec.dp * spec.tp * spec.pp;
  std::vector<RankClass> classes(spec.pp);
  stage_of.resize(npus);
  for (uint32_t p = 0; p < spec.pp; ++p) {
    classes[p].name = fmt::format("stage {}", p);
    classes[p].trace = fmt::format("class.{}.et", p);
    classes[p].representative = rank_of(spec, {0, 0, p});
  }
  for (uint32_t rank = 0; rank < npus; ++rank) {
    const uint32_t p = rank_coords(spec, rank).pp;
    stage_of[rank] = p;
    std::vector<RankRange>& runs = classes[p].ranks;
    if (!runs.empty() && runs.back().start + runs.back().count == rank) {
      ++runs.back().count;
    } else {
      runs.push_back(RankRange{rank, 1, 1});
    }
    ++classes[p].size;
  }
  return classes;
}

// The copies of `group` in the same stage: groups whose members are its members shifted by one offset.
GroupReplicas replicas_of(const NamedGroup& group, const std::vector<NamedGroup>& all,
                          const std::vector<uint32_t>& stage_of) {
  std::vector<uint32_t> offsets;
  for (const NamedGroup& other : all) {
    if (other.npus.size() != group.npus.size() || other.npus[0] < group.npus[0] ||
        stage_of[other.npus[0]] != stage_of[group.npus[0]])
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
  std::vector<uint32_t> stage_of;
  const std::vector<RankClass> classes = stage_classes(spec, stage_of);
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
      groups.push_back(SymmetricGroup{g.name, g.npus, replicas_of(g, all, stage_of)});
  }
  return write_symmetric_workload(directory, spec.dp * spec.tp * spec.pp, classes, traces, groups, gzip);
}

}  // namespace chorus
