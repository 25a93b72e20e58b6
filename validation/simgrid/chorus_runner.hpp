// The chorus side of the SimGrid cross-check: runs a scenario's flows through chorus's flow model.
#pragma once

#include <vector>

#include "validation/simgrid/scenario.hpp"

namespace chorus::validation {

// Completion time of every flow of `scenario`, in seconds, in the order of scenario.flows.
std::vector<double> run_chorus(const Scenario& scenario);

// Sum of the link latencies along chorus's route for every flow, in seconds.
std::vector<double> route_latencies(const Scenario& scenario);

}  // namespace chorus::validation
