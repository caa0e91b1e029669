// The `pipecheck` command line: parses arguments and dispatches to a command.
#pragma once

namespace pipecheck {

// Returns the process exit code: 0 success, 1 some check failed, 2 usage, 3 could not run.
int run_cli(int argc, char** argv);

}  // namespace pipecheck
