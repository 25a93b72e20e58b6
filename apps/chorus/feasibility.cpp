// Physical feasibility of a reported time (see feasibility.hpp).
#include "feasibility.hpp"

#include <fmt/format.h>

namespace chorus::cli {

void print_infeasible_warning(Time time, Time bound, NetworkModelKind model) {
  if (physically_feasible(time, bound))
    return;
  if (model == NetworkModelKind::Unaware) {
    fmt::print(
        "warning      time {} is below the lower bound {}: the unaware model ignores contention (messages sharing "
        "a link each get its full bandwidth); use --model flow for a physically feasible time\n",
        to_string(time), to_string(bound));
  } else {
    fmt::print("warning      time {} is below the lower bound {} under the {} model\n", to_string(time),
               to_string(bound), to_string(model));
  }
}

}  // namespace chorus::cli
