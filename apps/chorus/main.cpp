// chorus: the command-line entry point. Dispatches to the subcommands of commands.hpp and turns every
// input error into one line on stderr and exit status 2.
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"chorus: simulate, bound and design collective communication for distributed ML platforms"};
  app.require_subcommand(1);
  chorus::cli::register_cli_docs(app);  // --version, hidden --generate man|bash-completion
  chorus::cli::register_collective_command(app);
  chorus::cli::register_bound_command(app);
  chorus::cli::register_llm_command(app);
  chorus::cli::register_netopt_command(app);
  chorus::cli::register_sim_command(app);
  chorus::cli::register_generate_command(app);
  chorus::cli::register_convert_command(app);
  chorus::cli::register_synth_command(app);
  try {
    app.parse(argc, argv);
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
