// Output lost to a full disk or a closed stdout (`> /dev/full`, `>&-`) is a failure, for the
// `pipecheck` command and for every probe alike: the results are gone, so the exit code says the
// program could not do its work (3) instead of 0.
#pragma once

#include <string>

namespace pipecheck {

// Started with stdout closed (`>&-`), the first file opened would become fd 1 and the output
// would land in it: holds fds 0-2 with /dev/null opened read-only, so writes to a closed stream
// fail (and checked_stdout says so) instead of going anywhere.
void hold_standard_fds();

// `run | head`, `inventory | true`: a reader that went away killed the command by SIGPIPE with no
// word. From this call on, SIGPIPE says so on stderr ("<program>: cannot write standard output:
// Broken pipe") and exits 3, as any other lost output does. A handler, not SIG_IGN: handlers do
// not pass through exec, so the probes and a watched job keep the default they would have had;
// a SIGPIPE the launcher ignored stays ignored.
void exit_three_on_broken_pipe(const std::string& program);

// Flushes stdout; when anything written to it was lost, says so on stderr ("<program>: cannot
// write standard output: No space left on device") and returns `code` combined with exit 3.
int checked_stdout(int code, const std::string& program);

}  // namespace pipecheck
