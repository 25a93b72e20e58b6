// The NCCL model's answer as JSON (choice_json.hpp).
#include "chorus/nccl/choice_json.hpp"

namespace chorus::nccl {
namespace {

nlohmann::ordered_json candidate_json(const Candidate& k) {
  nlohmann::ordered_json j{{"algorithm", k.algorithm}, {"protocol", k.protocol}, {"channels", k.channels}};
  if (k.enabled()) {
    j["time_ns"] = k.time_us * 1e3;
    j["latency_ns"] = k.latency_us * 1e3;
    j["bandwidth_GBps"] = k.bandwidth_GBps;
  } else {
    j["time_ns"] = nullptr;
    j["disabled"] = k.disabled;
  }
  return j;
}

}  // namespace

nlohmann::ordered_json choice_json(const CommSystem& s, const Choice& choice, const std::optional<Time>& bound,
                                   bool explain) {
  const Candidate& best = choice.best();
  nlohmann::ordered_json j{{"collective", to_string(choice.kind)},
                           {"size", choice.bytes},
                           {"machine", s.machine},
                           {"nodes", s.nodes},
                           {"ranks", s.ranks},
                           {"library", s.constants->library},
                           {"nccl_algorithm", best.algorithm},
                           {"nccl_protocol", best.protocol},
                           {"channels", best.channels},
                           {"time_ns", choice.time_us * 1e3},
                           {"algbw_GBps", choice.algbw_GBps()},
                           {"busbw_GBps", choice.busbw_GBps(s.ranks)}};
  j["bound_ns"] = bound ? nlohmann::ordered_json(bound->nanoseconds()) : nlohmann::ordered_json(nullptr);
  if (explain) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Candidate& k : choice.candidates)
      list.push_back(candidate_json(k));
    j["candidates"] = std::move(list);
  }
  return j;
}

}  // namespace chorus::nccl
