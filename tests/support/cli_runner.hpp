// Test helper: runs the built `chorus` binary (CHORUS_BINARY) under a timeout and captures its output.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace chorus::testing_support {

struct CliRun {
  int status = -1;  // the exit status; -1 if it did not exit normally (a signal, or popen failed)
  std::string out;
};

inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted.append("'\\''");
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

// Runs `chorus ARGS...` with a 60 s timeout; `with_stderr` captures stderr into `out` too (else it passes through).
inline CliRun run_chorus(const std::vector<std::string>& args, bool with_stderr) {
  std::string command = "timeout -k 5 60 " + shell_quote(CHORUS_BINARY);
  for (const std::string& a : args) command += " " + shell_quote(a);
  if (with_stderr)
    command += " 2>&1";
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr)
    return run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace chorus::testing_support
