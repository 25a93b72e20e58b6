// Where the planner's parallel groups sit on the machine, and what their collectives cost there. Ranks are numbered
// TP fastest, then CP, DP and PP (as the trace generator places them: generate/llm_training.cpp, rank_of), and a
// tier-0 domain (a node) holds consecutive ranks. A gradient group whose members share nodes, several per node,
// reduces inside each node first and crosses the outer tier with its share of the bytes on each member's own NIC;
// a pipeline whose stages share nodes sends some of its activations over NVLink. The simulator engine runs both on
// the physical links; the planner prices them the same way here, so the two engines agree.
#pragma once

#include <cstdint>

#include "chorus/llm/inputs.hpp"

namespace chorus::llm {

// Members of the gradient (DP x CP) group in each tier-0 domain: tier 0's size over TP, at most the group.
int64_t gradient_members_per_domain(const Execution& exe, const System& sys);

// A collective of `bytes` (Calculon's convention: the whole buffer) over `n` members on `tier`, `per_domain` of them
// in each tier-0 domain: inside the domains on tier 0 and across them on `tier` with bytes / per_domain per member
// (reduce-scatter in, all-reduce / reduce-scatter / all-gather across, all-gather out), or the one-tier time when it
// is shorter (a flat ring), when the group lives in one domain, or when `tier` is tier 0.
double spread_op_time(const System& sys, int8_t tier, Collective op, double bytes, int64_t n, int64_t per_domain);

// The share of a microbatch's stage-to-stage sends that leave a tier-0 domain: every boundary between stages when a
// stage fills at least a domain; otherwise one in (stages per domain) of them (interleaved pipelines also send from
// the last stage back to the first).
double pipeline_cross_domain_share(const Execution& exe, const System& sys);

}  // namespace chorus::llm
