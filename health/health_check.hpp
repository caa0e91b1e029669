// The verdict of `pipecheck check`: the problems found on a node (each one line), the exit code
// they give under the outcome model, and the one-line reason Slurm records when the node drains.
// Pure over plain records, so every rule is tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/outcome.hpp"
#include "inventory/nvml_health.hpp"
#include "judge/profile.hpp"
#include "telemetry/kernel_xids.hpp"

namespace pipecheck {

// One thing wrong with the node (fail) or one thing the check could not tell (inconclusive).
struct HealthProblem {
  Verdict verdict = Verdict::fail;  // fail or inconclusive
  std::string subject;              // "gpu 0000:17:00.0", "host", "expect gpu.count"
  std::string text;                 // "2 volatile double-bit ECC errors since the driver loaded"
};
// "FAIL gpu 0000:17:00.0: 2 volatile double-bit ECC errors ..." (the line `check` prints).
std::string problem_line(const HealthProblem& problem);

// Xids that mean the GPU or its memory is unhealthy until reset or replaced: 48 (double-bit ECC),
// 63/64 (row remapping or page retirement event/failure), 74 (NVLink error), 79 (fallen off the
// bus), 92 (high single-bit ECC rate), 94/95 (contained/uncontained ECC error), 119/120 (GSP
// errors), 140 (unrecovered ECC). Others (13, 31, 43, 45: application faults) are left to the job.
bool xid_means_unhealthy(int xid);

// Problems of the inventory, as judge_inventory computes them: a GPU on the PCI bus the driver
// does not see, a link with fewer lanes than its maximum, a driver older than the runtime. Only
// fail and invalid count here (a link slowed at idle is a warn, a GPU given to a VM info).
std::vector<HealthProblem> inventory_problems(const Inventory& inventory, const Profile& profile);
// A GPU the driver sees (CUDA or NVML lists it; in an inventory.json of version 1, which names no
// source, every GPU), not one only on the bus; and how many there are.
bool seen_by_driver(const GpuInfo& gpu);
int driver_gpu_count(const Inventory& inventory);
// Problems of each GPU's health now: retired pages or remapped rows pending (reset needed), a
// failed remap (replace), volatile double-bit ECC errors, a thermal or hardware slowdown now,
// a GPU that does not answer (GPU is lost).
std::vector<HealthProblem> gpu_health_problems(const std::vector<GpuHealth>& gpus);
// One problem per GPU with unhealthy Xids since boot: "Xid 79 (fallen off the bus) x2".
std::vector<HealthProblem> xid_problems(const std::vector<BootXid>& xids);

// 0 healthy (nothing failed or inconclusive), 1 unhealthy (a fail), 4 inconclusive (no fail,
// something could not be told). In a job prolog an inconclusive check exits 0: a non-zero
// prolog drains the node and requeues the job, too much for "could not tell".
ExitCode check_exit_code(const std::vector<HealthProblem>& problems, bool prolog);

// The reason Slurm records (`scontrol update ... reason=`): "pipecheck: " and the first failure,
// "(+N more)" when there are others; printable ASCII only (no quotes, '=' or control
// characters: scontrol and sinfo show it as is), whitespace collapsed, under 100 characters.
std::string drain_reason(const std::vector<HealthProblem>& problems);

}  // namespace pipecheck
