// Verdicts on inventory facts beyond the links and the CUDA versions (judge.cpp): a GPU on the
// PCI bus that the driver does not see, and a process allowed fewer CPUs than the machine has.
#pragma once

#include <vector>

#include "core/inventory.hpp"
#include "judge/profile.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// One judgement per NVIDIA GPU that only the PCI bus lists (neither CUDA nor NVML sees it):
// profile key gpu.unseen_on_bus (default fail) with the bus id and what the bound driver says
// ("no driver bound", "bound to nouveau", "the NVIDIA driver holds it: fallen off the bus or
// failed to initialise"). Not a failure where the GPU is reserved for passthrough (vfio-pci,
// pci-stub), not given to this container (no /dev/nvidiaN in it), hidden by
// CUDA_VISIBLE_DEVICES without NVML to confirm, or on a recorded tree (the driver was not
// asked): those are info, a container without the device's minor warn.
std::vector<Judgement> judge_gpus_on_bus(const Inventory& inventory, const Profile& profile);

// info when this process may use fewer CPUs than the machine has online (affinity, cpuset or
// cgroup quota): the probes' default thread counts follow the usable CPUs.
std::vector<Judgement> judge_cpu_allowance(const Inventory& inventory);

}  // namespace pipecheck
