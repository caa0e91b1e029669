// Xids since boot from the kernel log (/dev/kmsg, readable by root or where dmesg_restrict is
// 0): the GPU faults the driver logged before this check started, which NVML cannot replay.
#pragma once

#include <string>
#include <vector>


namespace pipecheck {

// An Xid the kernel logged since boot (NVRM: Xid (PCI:0000:17:00): 79, ...).
struct BootXid {
  std::string bus_id;
  int xid = 0;
  std::string text;
};

struct KernelXids {
  bool readable = false;
  std::string why;  // why the log could not be read ("/dev/kmsg: Permission denied: run as root ...")
  std::vector<BootXid> xids;
};

// Reads every record the kernel's ring buffer still holds (from boot, unless it wrapped), without
// waiting for new ones. `path` is /dev/kmsg; tests pass a file of records.
KernelXids read_kernel_xids(const std::string& path = "/dev/kmsg");

}  // namespace pipecheck
