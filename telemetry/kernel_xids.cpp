// The kernel log's Xid lines since boot, read once and without blocking.
#include "telemetry/kernel_xids.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "telemetry/xid_monitor.hpp"

namespace pipecheck {

KernelXids read_kernel_xids(const std::string& path) {
  KernelXids result;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    result.why = "Xids since boot not checked: " + errno_message("open", path, errno) +
                 " (the kernel log needs root, or kernel.dmesg_restrict=0)";
    return result;
  }
  result.readable = true;
  // /dev/kmsg hands out one record per read; a plain file (tests) hands out chunks of lines.
  std::string pending;
  char buffer[8192];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue;  // records overwritten while reading: go on
    if (n <= 0) break;                      // EAGAIN: no more records; 0: end of a file
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0, end = 0;
    while ((end = pending.find('\n', start)) != std::string::npos) {
      if (const auto event = parse_kernel_xid(std::string_view(pending).substr(start, end - start))) {
        result.xids.push_back({event->bus_id, event->xid, event->text});
      }
      start = end + 1;
    }
    pending.erase(0, start);
  }
  if (const auto event = parse_kernel_xid(pending)) result.xids.push_back({event->bus_id, event->xid, event->text});
  close(fd);
  return result;
}

}  // namespace pipecheck
