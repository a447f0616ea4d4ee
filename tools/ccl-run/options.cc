// options.cc - ccl-run's command line. CLI11 reads ccl-run's own options;
// everything from the first word that is not one of them (PROGRAM) on is
// the rank's command line, untouched, so `ccl-run -n 2 ls -l` runs `ls -l`.
#include "tools/ccl-run/options.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "ccl/ccl.h"

namespace cclrun {
namespace {

const char kUsage[] =
    "Usage: ccl-run -n N [options] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Starts N processes of PROGRAM on this host, the ranks of one job, each\n"
    "with CCL_RANK, CCL_NRANKS, CCL_LOCAL_RANK, CCL_LOCAL_NRANKS and\n"
    "CCL_UNIQUE_ID in its environment (cclCommInitFromEnv reads them).\n"
    "Forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to the\n"
    "ranks. When a rank fails, ends the others (SIGTERM, then SIGKILL) and\n"
    "exits with its status (128+S for a rank killed by signal S); 0 when\n"
    "every rank exits 0.\n"
    "\n"
    "Options (before PROGRAM):\n"
    "  -n, --nranks N    number of ranks, at least 1 (required)\n"
    "  --grace-ms MS     time between the SIGTERM and the SIGKILL that end\n"
    "                    the other ranks after a failure (default 3000)\n"
    "  --tag-output      prefix every line the ranks write to stdout and\n"
    "                    stderr with \"[R] \", R the rank\n"
    "  --version         print the version and exit\n"
    "  -h, --help        print this help and exit\n"
    "\n"
    "Details: docs/ccl-run.md.\n";

[[noreturn]] void usageError(const std::string &message) {
  std::fprintf(stderr, "ccl-run: %s\nTry 'ccl-run --help' for more.\n",
               message.c_str());
  std::exit(kUsageStatus);
}

// A decimal integer in [min, max], all of `text`; else a usage error that
// names the option.
int64_t parseInteger(const std::string &option, const std::string &text,
                     int64_t min, int64_t max) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    usageError(option + ": '" + text + "' is not an integer");
  if (value < min)
    usageError(option + ": must be at least " + std::to_string(min) + " (got " +
               text + ")");
  if (value > max)
    usageError(option + ": must be at most " + std::to_string(max) + " (got " +
               text + ")");
  return value;
}

} // namespace

Options parseOptions(int argc, char **argv) {
  Options opts;
  bool haveN = false;
  CLI::App app("ccl-run");
  app.set_help_flag(); // kUsage instead of CLI11's generated help
  // Stop at PROGRAM: the rest goes to app.remaining(), untouched.
  app.prefix_command();
  // Called as soon as CLI11 reaches them, so that -h works without -n.
  app.add_flag_callback("-h,--help",
                        [] {
                          std::fputs(kUsage, stdout);
                          std::exit(0);
                        })
      ->trigger_on_parse();
  app.add_flag_callback("--version",
                        [] {
                          std::printf("ccl-run (cclc) %s\n",
                                      CCL_VERSION_STRING);
                          std::exit(0);
                        })
      ->trigger_on_parse();
  app.add_option_function<std::string>(
      "-n,--nranks", [&](const std::string &v) {
        opts.nranks =
            (int)parseInteger("-n", v, 1, std::numeric_limits<int>::max());
        haveN = true;
      });
  app.add_option_function<std::string>("--grace-ms", [&](const std::string &v) {
    opts.graceMs = parseInteger("--grace-ms", v, 0, 24LL * 3600 * 1000);
  });
  app.add_flag("--tag-output", opts.tagOutput);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    usageError(e.what());
  }

  std::vector<std::string> rest = app.remaining();
  bool dashdash = !rest.empty() && rest.front() == "--";
  if (dashdash)
    rest.erase(rest.begin());
  // Without "--", a word that looks like an option is a mistyped option of
  // ccl-run, not a program named "-x".
  if (!dashdash && !rest.empty() && rest.front().size() > 1 &&
      rest.front()[0] == '-')
    usageError("unknown option '" + rest.front() + "'");
  if (!haveN)
    usageError("missing -n N (the number of ranks; options go before "
               "PROGRAM)");
  if (rest.empty())
    usageError("missing PROGRAM");
  opts.command = std::move(rest);
  return opts;
}

} // namespace cclrun
