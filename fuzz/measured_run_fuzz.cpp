// libFuzzer harness: the measured-run reader (runtime/measured_run.hpp) that `chorus sim --measured FILE` uses.
#include "chorus/runtime/measured_run.hpp"
#include "fuzz/fuzz_input.hpp"

CHORUS_FUZZ_PATH_READER("run.measured.json", chorus::read_measured_run(path))
