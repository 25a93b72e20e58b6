// Test helper: runs the built `chorus` binary (CHORUS_BINARY) under a timeout and captures its output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace chorus::testing_support {

struct CliRun {
  int status = -1;  // the exit status; -1 if it did not exit normally (a signal, or popen failed)
  std::string out;
  std::string err;  // stderr, filled only by run_chorus_split()
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
// `redirect` is appended to the shell command as is (e.g. "2>file").
inline CliRun run_chorus(const std::vector<std::string>& args, bool with_stderr, const std::string& redirect = "") {
  // Appended piece by piece: `"literal" + std::string` trips GCC 12's -Wrestrict false positive (GCC bug 105329).
  std::string command = "timeout -k 5 60 ";
  command += shell_quote(CHORUS_BINARY);
  for (const std::string& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  if (with_stderr)
    command += " 2>&1";
  if (!redirect.empty()) {
    command += ' ';
    command += redirect;
  }
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr)
    return run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// Runs `chorus ARGS...` with stdout in `out` and stderr in `err` (through a temporary file: stderr is then not a
// terminal, as in any script).
inline CliRun run_chorus_split(const std::vector<std::string>& args) {
  char path[] = "/tmp/chorus_stderr_XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0)
    return CliRun{};
  ::close(fd);
  std::string redirect = "2>";
  redirect += shell_quote(path);
  CliRun run = run_chorus(args, false, redirect);
  if (FILE* file = std::fopen(path, "rb")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
      run.err.append(buffer, n);
    std::fclose(file);
  }
  std::remove(path);
  return run;
}

}  // namespace chorus::testing_support
