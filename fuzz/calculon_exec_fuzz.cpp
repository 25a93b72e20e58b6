// libFuzzer harness: the Calculon execution JSON reader (llm/inputs.hpp), against a fixed shipped application
// and system (the reader's other inputs).
#include "chorus/llm/inputs.hpp"
#include "fuzz/fuzz_input.hpp"

namespace {
const chorus::llm::Application& application() {
  static const chorus::llm::Application app =
      chorus::llm::read_application(CHORUS_SOURCE_DIR "/examples/llm/gpt3-175b.json");
  return app;
}
const chorus::llm::System& system_config() {
  static const chorus::llm::System sys = chorus::llm::read_system(CHORUS_SOURCE_DIR "/examples/llm/a100_80g.json");
  return sys;
}
}  // namespace

CHORUS_FUZZ_PATH_READER("exec.json", chorus::llm::read_execution(path, application(), system_config()))
