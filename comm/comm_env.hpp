// The NCCL knobs a run was made with: every NCCL_* environment variable, recorded beside the
// results so that two runs (NCCL_ALGO=Ring vs Tree, an NCCL_IB_HCA choice, ...) can be told apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pipecheck {

using EnvEntries = std::vector<std::pair<std::string, std::string>>;

// The NCCL_* entries of an environment block ("NAME=value" strings, null-terminated like
// environ), sorted by name. Entries without '=' are ignored.
EnvEntries nccl_environment(char** envp);

// "NCCL_ALGO=Ring NCCL_IB_HCA=mlx5_0,mlx5_1", or "none": the form a measurement label carries
// (';' would end a label item, so it becomes ','; spaces in values become '_').
std::string nccl_env_text(const EnvEntries& entries);

}  // namespace pipecheck
