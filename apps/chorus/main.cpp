// chorus: the command-line entry point. Dispatches to the subcommands of commands.hpp and turns every
// input error into one line on stderr and exit status 2.
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "commands.hpp"
#include "usage.hpp"

int main(int argc, char** argv) {
  CLI::App app{"chorus: simulate, bound and design collective communication for distributed ML platforms"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "chorus 0.1.0");
  chorus::cli::register_collective_command(app);
  chorus::cli::register_bound_command(app);
  chorus::cli::register_llm_command(app);
  chorus::cli::register_netopt_command(app);
  chorus::cli::register_sim_command(app);
  chorus::cli::register_generate_command(app);
  chorus::cli::register_convert_command(app);
  chorus::cli::register_synth_command(app);
  try {
    if (const int status = chorus::cli::parse_command_line(app, argc, argv); status != 0)
      return status;  // a usage error, already explained on stderr
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e);  // --help, --version
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const chorus::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const chorus::InternalError& e) {
    std::cerr << "error: " << e.what() << " (please report this bug)\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
