// Reading and checking fusion marks (see fusion_marks.hpp).
#include "chorus/workload/fusion_marks.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

void read_fusion_mark(const chakra::TraceNode& t, const std::string& file, WorkloadNode& n) {
  const chakra::OtherAttribute* op = nullptr;
  const chakra::OtherAttribute* tiles = nullptr;
  for (const chakra::OtherAttribute& a : t.other_attrs) {
    if (a.name == kFusedOpAttribute)
      op = &a;
    else if (a.name == kFusedTilesAttribute)
      tiles = &a;
  }
  if (op == nullptr && tiles == nullptr)
    return;
  const std::string field = fmt::format("node {}: {}", t.id, op != nullptr ? kFusedOpAttribute : kFusedTilesAttribute);
  if (t.type != chakra::NodeType::CommColl)
    throw Error(file, field,
                fmt::format("marks a {}; only a COMM_COLL_NODE can end a fused operator", chakra::to_string(t.type)));
  if (op == nullptr || tiles == nullptr || op->text.empty())
    throw Error(file, field, "a fused collective needs both fused_op (the operator's name) and fused_tiles");
  if (!tiles->integer || *tiles->integer < 1 || *tiles->integer > 1'000'000) {
    throw Error(file, fmt::format("node {}: {}", t.id, kFusedTilesAttribute),
                fmt::format("is {}; must be a tile count from 1 to 1000000",
                            tiles->integer ? fmt::format("{}", *tiles->integer) : tiles->text));
  }
  n.fused_op = op->text;
  n.fused_tiles = static_cast<uint32_t>(*tiles->integer);
}

void check_fusion_marks(const NpuGraph& g) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const WorkloadNode& n = g.nodes[i];
    if (n.fused_tiles == 0)
      continue;
    const std::string field = fmt::format("node {}: {}", n.id, kFusedOpAttribute);
    if (g.dep_count(i) != 1) {
      throw Error(g.file, field,
                  fmt::format("fusion requested, but the collective depends on {} nodes; it must consume only the "
                              "output of the compute node it is fused with",
                              g.dep_count(i)));
    }
    const WorkloadNode& input = g.nodes[g.deps[g.dep_offsets[i]]];
    if (input.type != chakra::NodeType::Comp || input.is_cpu_op) {
      throw Error(
          g.file, field,
          fmt::format("fusion requested, but the collective's input, node {}, is a {}{}, not a GPU compute node",
                      input.id, chakra::to_string(input.type), input.is_cpu_op ? " CPU op" : ""));
    }
  }
}

}  // namespace chorus
