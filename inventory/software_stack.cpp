// Reading the software stack from /proc, /dev and the NCCL seam, and judging the CUDA driver
// against the runtime pipecheck was built with.
#include "inventory/software_stack.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "inventory/nccl_version.hpp"

namespace pipecheck {

std::optional<std::string> parse_nvrm_version(const std::string& text) {
  // Proprietary: "... Kernel Module  580.65.06  Sun Jul 27 ..."; open: "... Open Kernel Module
  // for x86_64  580.65.06  Release Build ...". The version is the first dotted number.
  static const std::regex version(
      R"(NVRM version:[^\n]*?\s([0-9]{2,4}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)\s)");
  std::smatch match;
  if (!std::regex_search(text, match, version)) return std::nullopt;
  return match[1].str();
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string format_nccl_version(int code) {
  // NCCL 2.9 changed NCCL_VERSION_CODE from major*1000+minor*100+patch to
  // major*10000+minor*100+patch.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string detect_container(const SysfsRoot& sys) {
  std::vector<std::string> evidence;
  if (sys.exists("/.dockerenv")) evidence.push_back("/.dockerenv");
  if (sys.exists("/run/.containerenv")) evidence.push_back("/run/.containerenv");
  if (const auto cgroup = sys.read("/proc/1/cgroup")) {
    // cgroup v1 names the runtime in PID 1's path; cgroup v2 inside a namespace shows "0::/",
    // so the files above and the environment remain the main evidence there.
    for (const char* runtime : {"docker", "kubepods", "containerd", "lxc"}) {
      if (cgroup->find(runtime) != std::string::npos) {
        evidence.push_back(std::string("cgroup: ") + runtime);
        break;
      }
    }
  }
  // PID 1's environment is readable only by root or the same user; absent otherwise.
  if (const auto environ = sys.read("/proc/1/environ")) {
    std::istringstream entries(*environ);
    std::string entry;
    while (std::getline(entries, entry, '\0')) {
      if (entry.rfind("container=", 0) == 0 && entry.size() > 10) {
        evidence.push_back("environ: " + entry);
        break;
      }
    }
  }
  std::string joined;
  for (const std::string& item : evidence) joined += (joined.empty() ? "" : ", ") + item;
  return joined;
}

std::optional<std::string> recorded_system_info(const SysfsRoot& sys, const std::string& key) {
  // hwloc-gather-topology records the machine's uname in this file of the tree.
  const auto text = sys.read("/proc/hwloc-nofile-info");
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key + ": ", 0) == 0) {
      const std::string value = trim(line.substr(key.size() + 2));
      if (!value.empty()) return value;
    }
  }
  return std::nullopt;
}

std::string recorded_hostname(const SysfsRoot& sys) {
  if (const auto name = sys.read_line("/proc/sys/kernel/hostname"); name && !name->empty()) return *name;
  return recorded_system_info(sys, "HostName").value_or("unknown");
}

SoftwareStack read_software_stack(const SysfsRoot& sys) {
  SoftwareStack stack;
  stack.kernel = sys.read_line("/proc/sys/kernel/osrelease").value_or("");
  if (stack.kernel.empty() && !sys.is_live()) stack.kernel = recorded_system_info(sys, "OSRelease").value_or("");
  if (const auto text = sys.read("/proc/driver/nvidia/version")) {
    stack.driver_version = parse_nvrm_version(*text);
  }
  // NCCL and the environment belong to this host and this process: a recorded tree has neither.
  if (sys.is_live()) {
    const NcclVersion nccl = query_nccl_version();
    stack.nccl_built = nccl.built;
    stack.nccl_version = nccl.code;
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) stack.cuda_visible_devices = visible;
  }
  stack.container_evidence = detect_container(sys);
  stack.in_container = !stack.container_evidence.empty();
  for (const std::string& name : sys.list("/dev")) {
    if (name.rfind("nvidia", 0) == 0) stack.nvidia_device_nodes.push_back("/dev/" + name);
  }
  return stack;
}

std::optional<std::string> SoftwareStack::cuda_mismatch() const {
  if (!driver_cuda_version || !runtime_cuda_version) return std::nullopt;
  const int driver = *driver_cuda_version;
  const int runtime = *runtime_cuda_version;
  if (driver >= runtime) return std::nullopt;
  const std::string versions = "driver supports CUDA " + format_cuda_version(driver) +
                               ", pipecheck built with CUDA " + format_cuda_version(runtime);
  if (driver / 1000 < runtime / 1000) {
    return versions +
           ": the runtime cannot use this driver (cudaGetDeviceCount fails with 'CUDA driver "
           "version is insufficient for CUDA runtime version'; tools report 'no CUDA-capable "
           "device'): upgrade the driver or build with CUDA " +
           std::to_string(driver / 1000) + ".x";
  }
  // Same major version: CUDA's minor-version compatibility runs it, without the newer features.
  return versions +
         ": runs under minor-version compatibility; APIs newer than the driver fail and PTX "
         "from the newer compiler cannot be JIT-compiled";
}

}  // namespace pipecheck
