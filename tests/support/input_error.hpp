// Test helper: a CLI run that must end as bad input does: exit status 2 and one line "error: ..." (stdout and stderr
// together: nothing else may be printed), containing every needle (the file or option, the field, the value).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace chorus::testing_support {

inline void expect_input_error(const CliRun& run, const std::vector<std::string>& needles) {
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_EQ(run.out.rfind("error: ", 0), 0u) << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  for (const std::string& needle : needles)
    EXPECT_NE(run.out.find(needle), std::string::npos) << "missing '" << needle << "' in: " << run.out;
}

}  // namespace chorus::testing_support
