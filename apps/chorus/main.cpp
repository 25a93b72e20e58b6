// chorus: the command-line entry point. Dispatches to the subcommands of commands.hpp and turns every
// input error into one line on stderr and exit status 2.
#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "commands.hpp"
#include "error_text.hpp"
#include "usage.hpp"

namespace {

// An error is one line: control characters from inputs (a newline inside a JSON string, a terminal escape) are
// written as escapes, so that no file can split the line or drive the terminal.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

int report(std::string_view message, int status) {
  std::cerr << "error: " << one_line(message) << "\n";
  return status;
}

// An empty file name (a script's unset variable) would otherwise read as "not given" and lose the output silently;
// so would an empty --queue or --only.
void refuse_empty_paths(CLI::App& app) {
  static constexpr std::array<std::string_view, 7> kPaths = {"--out",   "--report", "--schedule", "--link-stats",
                                                             "--queue", "--only",   "--csv"};
  for (CLI::Option* option : app.get_options()) {
    const std::vector<std::string>& long_names = option->get_lnames();
    if (long_names.empty())
      continue;
    const std::string name = "--" + long_names.front();
    if (std::find(kPaths.begin(), kPaths.end(), name) == kPaths.end())
      continue;
    const bool file = name != "--queue" && name != "--only";
    option->each([name, file](const std::string& value) {
      if (value.empty())
        throw chorus::Error(name, "", file ? "is empty; give a file name" : "is empty; give a value");
    });
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    refuse_empty_paths(*sub);
}

// Output written to stdout that did not arrive (a full disk, a closed pipe reader) is an error, as for files.
int check_stdout() {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout)
    return report("standard output: cannot write (disk full or not writable?)", 2);
  return 0;
}

struct Subcommand {
  std::string_view name;
  void (*add)(CLI::App&);
  bool needs_all = false;  // runs the other subcommands (sweep's jobs)
};

// Every subcommand, in the order `chorus` and --help list them.
constexpr Subcommand kSubcommands[] = {
    {"collective", chorus::cli::register_collective_command},
    {"bound", chorus::cli::register_bound_command},
    {"llm", chorus::cli::register_llm_command},
    {"netopt", chorus::cli::register_netopt_command},
    {"codesign", chorus::cli::register_codesign_command},
    {"sim", chorus::cli::register_sim_command},
    {"generate", chorus::cli::register_generate_command},
    {"convert", chorus::cli::register_convert_command},
    {"synth", chorus::cli::register_synth_command},
    {"hlo", chorus::cli::register_hlo_command},
    {"sweep", chorus::cli::register_sweep_command, true},
    {"fused", chorus::cli::register_fused_command},
    {"fuse", chorus::cli::register_fuse_command},
    {"import", chorus::cli::register_import_command},
    {"machines", chorus::cli::register_machines_command},
    {"validate", chorus::cli::register_validate_command},
    {"calibrate", chorus::cli::register_calibrate_command},
};

// Only what this command line can reach is built (a subcommand's options, help texts and the tables behind them):
// `chorus NAME ...` registers NAME alone and `chorus --version ...` none; anything else (no subcommand, --help,
// --generate, a mistyped name, `sweep`) registers all, so listings and suggestions see every subcommand.
void register_subcommands(CLI::App& app, int argc, char** argv) {
  if (argc >= 2) {
    const std::string_view first = argv[1];
    for (const Subcommand& sub : kSubcommands) {
      if (first == sub.name && !sub.needs_all) {
        sub.add(app);
        return;
      }
    }
    if (argc == 2 && first == "--version")
      return;
  }
  for (const Subcommand& sub : kSubcommands)
    sub.add(app);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--version") {  // what scripts ask most: no CLI to build
    std::cout << chorus::cli::version_line() << "\n";
    return 0;
  }
  CLI::App app{"chorus: simulate, bound and design collective communication for distributed ML platforms"};
  app.require_subcommand(1);
  chorus::cli::register_cli_docs(app);  // --version, hidden --generate man|bash-completion
  register_subcommands(app, argc, argv);
  refuse_empty_paths(app);
  try {
    if (const int status = chorus::cli::parse_command_line(app, argc, argv); status != 0)
      return status;  // a usage error, already explained on stderr
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e);  // --help, --version
    return report(e.what(), 2);
  } catch (const chorus::Error& e) {
    return report(chorus::cli::error_text(e), 2);
  } catch (const chorus::InternalError& e) {
    return report(std::string(e.what()) + " (please report this bug)", 3);
  } catch (const std::bad_alloc&) {
    return report("out of memory", 3);
  } catch (const std::exception& e) {
    return report(e.what(), 2);
  }
  return check_stdout();
}
