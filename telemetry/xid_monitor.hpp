// Xid errors during a stress run, from NVML events (nvmlEventTypeXidCriticalError) and from the
// kernel log (/dev/kmsg "NVRM: Xid" lines) where readable. The kernel log also sees Xids that
// NVML cannot deliver once the GPU has fallen off the bus.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "inventory/nvml_library.hpp"

namespace pipecheck {

struct XidEvent {
  std::string bus_id;  // "0000:17:00.0"
  int xid = 0;
  std::string source;  // "nvml", "kmsg" or "nvml+kmsg"
  std::string text;    // the kernel log line, when from there
  double elapsed_s = 0;
};

// "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus." from one
// /dev/kmsg record ("4,1234,5678,-;NVRM: ...") or a dmesg line. nullopt for any other line.
std::optional<XidEvent> parse_kernel_xid(std::string_view line);

// The same Xid reported by both sources within a few seconds is one event.
bool same_xid_event(const XidEvent& a, const XidEvent& b);

class XidMonitor {
 public:
  using Clock = std::chrono::steady_clock;

  // gpus: NVML handle (may be null) and bus id of each GPU under test. `nvml` may be null or not
  // ok; it must outlive the monitor. read_kernel_log: also follow /dev/kmsg from now on.
  XidMonitor(const NvmlLibrary* nvml, std::vector<std::pair<nvml::Device, std::string>> gpus,
             bool read_kernel_log, Clock::time_point start);
  ~XidMonitor();
  XidMonitor(const XidMonitor&) = delete;
  XidMonitor& operator=(const XidMonitor&) = delete;

  void start();
  void stop();
  // Events since the previous call (the sampler puts them on the next row of their GPU).
  std::vector<XidEvent> take();
  // Why a source is not watched ("Xids from the kernel log: /dev/kmsg: Permission denied").
  std::vector<std::string> notes() const;
  // Every event of the run, merged across sources (for the summary).
  std::vector<XidEvent> all() const;

 private:
  void open_sources();
  void loop();
  void wait_nvml(unsigned timeout_ms);
  void drain_kernel_log();
  void add(XidEvent event);

  const NvmlLibrary* nvml_;
  std::vector<std::pair<nvml::Device, std::string>> gpus_;
  bool read_kernel_log_;
  Clock::time_point start_;
  void* event_set_ = nullptr;  // nvmlEventSet_t
  nvml::Return (*event_set_wait_)(void*, void*, unsigned) = nullptr;
  nvml::Return (*event_set_free_)(void*) = nullptr;
  int kmsg_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<XidEvent> pending_;
  std::vector<XidEvent> all_;  // every event, for merging the two sources and the summary
  std::vector<std::string> notes_;
};

}  // namespace pipecheck
