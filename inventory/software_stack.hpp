// The software side of the inventory: kernel, NVIDIA driver, CUDA driver vs runtime, NCCL,
// container and /dev/nvidia* nodes. read_software_stack fills what needs no GPU library;
// read_gpus (gpu_inventory.hpp) then fills the CUDA/NVML fields.
#pragma once

#include <optional>
#include <string>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// Fills kernel (/proc/sys/kernel/osrelease, on a recorded tree else hwloc-gather-topology's
// /proc/hwloc-nofile-info), driver_version from /proc/driver/nvidia/version (read_gpus replaces
// it with NVML's when NVML loads), in_container with its evidence, and nvidia_device_nodes
// (/dev/nvidia*). On the live machine also nccl_built/nccl_version and CUDA_VISIBLE_DEVICES;
// never on a recorded tree (facts of this host, not of the recorded one). Leaves cuda_built,
// the CUDA versions, cuda_error, nvml_loaded and nvml_error to read_gpus. Never throws; unknown
// facts stay empty.
SoftwareStack read_software_stack(const SysfsRoot& sys);

// The host name of a recorded tree: its /proc/sys/kernel/hostname, else the HostName of
// /proc/hwloc-nofile-info, else "unknown".
std::string recorded_hostname(const SysfsRoot& sys);

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." -> "580.65.06".
std::optional<std::string> parse_nvrm_version(const std::string& text);
// 13000 -> "13.0", 12040 -> "12.4" (cudaDriverGetVersion / cudaRuntimeGetVersion encoding).
std::string format_cuda_version(int version);
// 22703 -> "2.27.3"; NCCL before 2.9 encoded 2708 -> "2.7.8".
std::string format_nccl_version(int code);

// The container evidence found under the root, joined with ", " ("/.dockerenv, cgroup: docker");
// empty when none.
std::string detect_container(const SysfsRoot& sys);

}  // namespace pipecheck
