// Helpers shared by the LLM planner tests: paths of the reference inputs and of the presets, and a way to
// run the chorus binary and capture its exit status and output.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace chorus::llm::testing {

inline std::string reference(const std::string& rel) {
  return std::string(CHORUS_REFERENCE_DIR) + "/" + rel;
}
inline std::string calculon(const std::string& rel) {
  return reference("calculon-inputs/" + rel);
}
inline std::string preset(const std::string& rel) {
  return std::string(CHORUS_SOURCE_DIR) + "/examples/llm/" + rel;
}

struct CommandResult {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` through the shell; `tag` names the temporary capture files.
inline CommandResult run_command(const std::string& command, const std::string& tag) {
  const std::string out = ::testing::TempDir() + tag + ".out";
  const std::string err = ::testing::TempDir() + tag + ".err";
  const int raw = std::system((command + " >" + out + " 2>" + err).c_str());
  CommandResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline CommandResult run_chorus(const std::string& args, const std::string& tag) {
  return run_command(std::string(CHORUS_BINARY) + " " + args, tag);
}

}  // namespace chorus::llm::testing
