// Judging a GPU seen on the bus only, and the CPU allowance.
#include "judge/inventory_verdicts.hpp"

#include <algorithm>

#include "core/stage_names.hpp"

namespace pipecheck {

namespace {

bool seen_by(const GpuInfo& gpu, const char* who) {
  return std::find(gpu.seen_by.begin(), gpu.seen_by.end(), who) != gpu.seen_by.end();
}

bool bus_only(const GpuInfo& gpu) { return seen_by(gpu, "pci") && !seen_by(gpu, "cuda") && !seen_by(gpu, "nvml"); }

bool has_node(const SoftwareStack& software, int minor) {
  const std::string node = "/dev/nvidia" + std::to_string(minor);
  return std::find(software.nvidia_device_nodes.begin(), software.nvidia_device_nodes.end(), node) !=
         software.nvidia_device_nodes.end();
}

bool any_cuda_gpu(const Inventory& inventory) {
  return std::any_of(inventory.gpus.begin(), inventory.gpus.end(), [](const GpuInfo& g) { return seen_by(g, "cuda"); });
}

// Why the driver does not see it, from the driver the kernel bound to the function.
std::string driver_words(const GpuInfo& gpu) {
  if (gpu.pci_driver.empty()) return "no driver bound to it: the NVIDIA driver is not loaded or does not claim it";
  if (gpu.pci_driver == "nouveau") return "bound to nouveau, not the NVIDIA driver";
  if (gpu.pci_driver == "nvidia") {
    return "the NVIDIA driver holds it but neither CUDA nor NVML sees it: fallen off the bus (Xid 79) or failed to "
           "initialise (see dmesg)";
  }
  return "bound to " + gpu.pci_driver + ", not the NVIDIA driver";
}

Judgement judge_one(const Inventory& inventory, const GpuInfo& gpu, const Profile& profile) {
  const std::string key = "gpu.unseen_on_bus";
  const SoftwareStack& software = inventory.software;
  Judgement j{"inventory/gpu/" + gpu.pci_bdf + "/driver", stage_name::compute, "GPU " + gpu.pci_bdf + " on the PCI bus",
              Verdict::info, profile.rule(key), ""};
  if (!inventory.recorded_root.empty()) {
    j.explanation = "seen on the bus of a recorded tree; the driver was not asked";
    return j;
  }
  if (gpu.pci_driver == "vfio-pci" || gpu.pci_driver == "pci-stub") {
    j.explanation = "bound to " + gpu.pci_driver + ": reserved for passthrough to a VM, not usable here";
    return j;
  }
  if (software.in_container) {
    if (gpu.device_minor && !has_node(software, *gpu.device_minor)) {
      j.explanation = "not given to this container (no /dev/nvidia" + std::to_string(*gpu.device_minor) + " in it)";
      return j;
    }
    if (!gpu.device_minor) {
      j.verdict = Verdict::warn;
      j.explanation = "neither CUDA nor NVML sees it; in a container it may simply not be given to it (the driver "
                      "names no device node for it)";
      return j;
    }
  }
  if (software.cuda_visible_devices && !software.nvml_loaded && any_cuda_gpu(inventory)) {
    j.explanation = "CUDA does not see it and NVML is not loaded to say more: CUDA_VISIBLE_DEVICES=" +
                    *software.cuda_visible_devices + " may hide it";
    return j;
  }
  j.verdict = profile.policy(key);
  j.explanation = "on the bus but not seen by the driver (neither CUDA nor NVML lists it): " + driver_words(gpu);
  if (!software.nvml_loaded && !software.nvml_error.empty()) j.explanation += "; " + software.nvml_error;
  return j;
}

}  // namespace

std::vector<Judgement> judge_gpus_on_bus(const Inventory& inventory, const Profile& profile) {
  std::vector<Judgement> judgements;
  for (const GpuInfo& gpu : inventory.gpus) {
    if (bus_only(gpu)) judgements.push_back(judge_one(inventory, gpu, profile));
  }
  return judgements;
}

std::vector<Judgement> judge_cpu_allowance(const Inventory& inventory) {
  const CpuAllowance& allowance = inventory.cpu_allowance;
  if (!allowance.limited()) return {};
  return {{"inventory/cpu/allowance", stage_name::decode, "CPUs this process may use", Verdict::info, "",
           "this process may use " + allowance.describe() +
               ": the probes' default thread counts follow the usable CPUs, and CPU figures are this share's"}};
}

}  // namespace pipecheck
