// The --out folder of `stress` and `watch`: never a silent overwrite of an earlier run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pipecheck {

// A folder that holds any of `names` (another run's files: telemetry.csv, summary.json, ...)
// is refused with a UsageError naming the folder and the files, unless `force`: then those
// files are removed first (a link among them is removed, never followed), so the run creates
// each one anew. A folder without them, or no folder yet, is fine. `flag` is how the command
// calls the folder ("--out").
void claim_out_folder(const std::filesystem::path& dir, const std::vector<std::string>& names, bool force,
                      const std::string& flag = "--out");

}  // namespace pipecheck
