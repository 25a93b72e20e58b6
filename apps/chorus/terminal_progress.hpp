// Progress of long jobs on the terminal: a line on stderr, redrawn in place, once a job has run ~2 s; nothing when
// stderr is not a terminal or the output is --json.
#pragma once

#include <memory>

#include "chorus/core/progress.hpp"

namespace chorus::cli {

// The progress sink for a command: null (no progress) unless stderr is a terminal and `json` is false.
// CHORUS_PROGRESS_DELAY (seconds, default 2) sets how long a job runs before its line appears.
std::unique_ptr<Progress> terminal_progress(bool json);

}  // namespace chorus::cli
