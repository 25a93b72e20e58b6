// Runs tasks in forked child processes, at most `parallel` at once, each with its stdout and stderr captured.
//
// Why children and not threads: the chorus commands print their results to the process's stdout (fmt::print,
// std::cout), which threads would share; a forked child runs the very same in-process command function with its
// own stdout, and an input error or a crash in one point cannot take the sweep down. The parent stays
// single-threaded (fork from a multi-threaded process is unsafe) and only waits and collects.
//
//   run_in_children(tasks, 4, [](uint64_t t) { return run_job(t); },
//                   [](uint64_t t, const ChildOutput& o) { write_row(t, o); });
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace chorus {

struct ChildOutput {
  int status = -1;  // exit status; 128 + signal number if killed by a signal
  std::string out;  // stdout
  std::string err;  // stderr
};

// `child(task)` runs in the child and returns its exit status (the child flushes and _exits with it); `done` runs
// in the parent as each child ends, in completion order. Throws chorus::Error if a child cannot be started.
void run_in_children(std::span<const uint64_t> tasks, unsigned parallel, const std::function<int(uint64_t)>& child,
                     const std::function<void(uint64_t, const ChildOutput&)>& done);

}  // namespace chorus
