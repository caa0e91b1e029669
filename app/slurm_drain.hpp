// Draining this node through Slurm when `pipecheck check --slurm-drain` finds it unhealthy:
// Slurm ignores HealthCheckProgram's exit code, so the check drains the node itself, as LBNL's
// NHC does, with `scontrol update nodename=NODE state=drain reason="pipecheck: ..."`.
#pragma once

#include <string>
#include <vector>

namespace pipecheck {

// The node name Slurm knows: $SLURMD_NODENAME (set for HealthCheckProgram, prolog and epilog),
// else this host's short name (up to the first dot), as slurm.conf usually names nodes.
std::string slurm_node_name(const char* slurmd_nodename, const std::string& host_name);

// {scontrol, "update", "nodename=NODE", "state=drain", "reason=REASON"}: one argument each, no
// shell, so the reason needs no quoting.
std::vector<std::string> drain_command(const std::string& scontrol, const std::string& node, const std::string& reason);

struct DrainResult {
  bool drained = false;
  std::string message;  // "drained node n1: pipecheck: ..." or why not
};

// Runs the command (at most 30 s); scontrol's own words when it refuses.
DrainResult drain_node(const std::string& scontrol, const std::string& node, const std::string& reason);

}  // namespace pipecheck
