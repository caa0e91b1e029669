// scontrol update ... state=drain, run as a child with a time limit.
#include "app/slurm_drain.hpp"

#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

std::string slurm_node_name(const char* slurmd_nodename, const std::string& host_name) {
  if (slurmd_nodename && *slurmd_nodename) return slurmd_nodename;
  return host_name.substr(0, host_name.find('.'));
}

std::vector<std::string> drain_command(const std::string& scontrol, const std::string& node, const std::string& reason) {
  return {scontrol, "update", "nodename=" + node, "state=drain", "reason=" + reason};
}

namespace {

// scontrol on PATH, as a shell would find it (run_process takes a path).
std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return name;
}

}  // namespace

DrainResult drain_node(const std::string& scontrol, const std::string& node, const std::string& reason) {
  DrainResult result;
  char dir_template[] = "/tmp/pipecheck-drain-XXXXXX";
  if (!mkdtemp(dir_template)) {
    result.message = "could not drain node " + node + ": no temporary folder";
    return result;
  }
  const fs::path dir = dir_template;
  ProcessSpec spec;
  spec.argv = drain_command(find_on_path(scontrol), node, reason);
  spec.stdout_path = dir / "scontrol.out";
  spec.stderr_path = dir / "scontrol.err";
  spec.time_limit = std::chrono::seconds(30);
  const ProcessResult process = run_process(spec);
  std::string said;
  try {
    said = trim(read_file(spec.stderr_path) + " " + read_file(spec.stdout_path));
  } catch (const std::exception&) {
  }
  std::error_code error;
  fs::remove_all(dir, error);
  if (process.ok()) {
    result.drained = true;
    result.message = "drained node " + node + ": " + reason;
  } else {
    result.message = "could not drain node " + node + ": scontrol " + process.describe() + (said.empty() ? "" : ": " + said);
  }
  return result;
}

}  // namespace pipecheck
