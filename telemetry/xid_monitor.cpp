// Watching for Xids: one thread waits on the NVML event set and drains /dev/kmsg between waits.
#include "telemetry/xid_monitor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

namespace {

constexpr unsigned long long event_type_xid = 0x8;  // nvmlEventTypeXidCriticalError
constexpr unsigned wait_ms = 200;                    // how soon stop() is noticed
constexpr double merge_window_s = 5.0;

struct EventData {  // nvmlEventData_t (NVML >= 11: with instance ids)
  nvml::Device device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

}  // namespace

std::optional<XidEvent> parse_kernel_xid(std::string_view line) {
  const std::size_t marker = line.find("NVRM: Xid (PCI:");
  if (marker == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(marker + std::strlen("NVRM: Xid (PCI:"));
  const std::size_t close = rest.find("):");
  if (close == std::string_view::npos) return std::nullopt;
  std::string address(rest.substr(0, close));
  // The driver prints domain:bus:device without the function; GPUs are function 0.
  if (std::count(address.begin(), address.end(), '.') == 0) address += ".0";
  const auto bus_id = normalize_bdf(address);
  if (!bus_id) return std::nullopt;
  const std::string after(rest.substr(close + 2));
  char* end = nullptr;
  const long xid = std::strtol(after.c_str(), &end, 10);
  if (end == after.c_str() || xid <= 0) return std::nullopt;
  XidEvent event;
  event.bus_id = *bus_id;
  event.xid = static_cast<int>(xid);
  event.source = "kmsg";
  event.text = std::string(line.substr(marker));
  while (!event.text.empty() && (event.text.back() == '\n' || event.text.back() == '\r')) event.text.pop_back();
  return event;
}

bool same_xid_event(const XidEvent& a, const XidEvent& b) {
  return a.bus_id == b.bus_id && a.xid == b.xid && a.source != b.source &&
         std::fabs(a.elapsed_s - b.elapsed_s) <= merge_window_s;
}

XidMonitor::XidMonitor(const NvmlLibrary* nvml, std::vector<std::pair<nvml::Device, std::string>> gpus,
                       bool read_kernel_log, Clock::time_point start)
    : nvml_(nvml), gpus_(std::move(gpus)), read_kernel_log_(read_kernel_log), start_(start) {}

XidMonitor::~XidMonitor() { stop(); }

void XidMonitor::open_sources() {
  if (nvml_ && nvml_->ok()) {
    auto create = nvml_->resolve<nvml::Return(void**)>("nvmlEventSetCreate");
    auto register_events = nvml_->resolve<nvml::Return(nvml::Device, unsigned long long, void*)>(
        "nvmlDeviceRegisterEvents");
    event_set_wait_ = nvml_->resolve<nvml::Return(void*, void*, unsigned)>("nvmlEventSetWait_v2");
    event_set_free_ = nvml_->resolve<nvml::Return(void*)>("nvmlEventSetFree");
    nvml::Return rc = NvmlLibrary::call(create, &event_set_);
    if (rc != nvml::success || !event_set_wait_) {
      notes_.push_back("Xids from NVML events: " + nvml_->error_text("nvmlEventSetCreate", rc));
      event_set_ = nullptr;
    }
    int registered = 0;
    for (const auto& [device, bus_id] : gpus_) {
      if (!event_set_ || !device) continue;
      rc = NvmlLibrary::call(register_events, device, event_type_xid, event_set_);
      if (rc == nvml::success) {
        ++registered;
      } else {
        notes_.push_back("Xids from NVML events: " +
                         nvml_->error_text("nvmlDeviceRegisterEvents", rc, bus_id));
      }
    }
    if (event_set_ && registered == 0) {
      NvmlLibrary::call(event_set_free_, event_set_);
      event_set_ = nullptr;
    }
  } else if (!gpus_.empty()) {
    notes_.push_back("Xids from NVML events: NVML not loaded");
  }
  if (!read_kernel_log_) return;
  kmsg_fd_ = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (kmsg_fd_ < 0) {
    notes_.push_back(std::string("Xids from the kernel log: /dev/kmsg: ") + std::strerror(errno));
    return;
  }
  // Only what happens from now on: older Xids belong to earlier runs.
  lseek(kmsg_fd_, 0, SEEK_END);
}

void XidMonitor::start() {
  open_sources();
  if (!event_set_ && kmsg_fd_ < 0) return;
  thread_ = std::thread([this] { loop(); });
}

void XidMonitor::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (event_set_) NvmlLibrary::call(event_set_free_, event_set_);
  event_set_ = nullptr;
  if (kmsg_fd_ >= 0) close(kmsg_fd_);
  kmsg_fd_ = -1;
}

void XidMonitor::loop() {
  while (!stop_) {
    if (event_set_) {
      wait_nvml(wait_ms);
    } else {
      pollfd entry{kmsg_fd_, POLLIN, 0};
      poll(&entry, 1, static_cast<int>(wait_ms));
    }
    if (kmsg_fd_ >= 0) drain_kernel_log();
  }
}

void XidMonitor::wait_nvml(unsigned timeout_ms) {
  EventData data{};
  const nvml::Return rc = event_set_wait_(event_set_, &data, timeout_ms);
  if (rc == nvml::error_timeout) return;
  if (rc != nvml::success) {
    // A lost GPU makes every wait fail at once: do not spin on it.
    usleep(timeout_ms * 1000);
    return;
  }
  if ((data.event_type & event_type_xid) == 0) return;
  XidEvent event;
  for (const auto& [device, bus_id] : gpus_) {
    if (device == data.device) event.bus_id = bus_id;
  }
  event.xid = static_cast<int>(data.event_data);
  event.source = "nvml";
  add(std::move(event));
}

void XidMonitor::drain_kernel_log() {
  char record[8192];
  for (;;) {
    const ssize_t n = read(kmsg_fd_, record, sizeof record - 1);
    if (n < 0 && errno == EPIPE) continue;  // records overwritten before we read them
    if (n <= 0) return;
    record[n] = '\0';
    if (auto event = parse_kernel_xid(std::string_view(record, static_cast<std::size_t>(n)))) {
      add(std::move(*event));
    }
  }
}

void XidMonitor::add(XidEvent event) {
  event.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::lock_guard lock(mutex_);
  for (auto& seen : all_) {
    if (same_xid_event(seen, event)) {
      seen.source = "nvml+kmsg";
      if (seen.text.empty()) seen.text = event.text;
      return;
    }
  }
  all_.push_back(event);
  pending_.push_back(std::move(event));
}

std::vector<XidEvent> XidMonitor::take() {
  const std::lock_guard lock(mutex_);
  std::vector<XidEvent> taken;
  taken.swap(pending_);
  return taken;
}

std::vector<std::string> XidMonitor::notes() const {
  const std::lock_guard lock(mutex_);
  return notes_;
}

}  // namespace pipecheck

namespace pipecheck {

std::vector<XidEvent> XidMonitor::all() const {
  const std::lock_guard lock(mutex_);
  return all_;
}

}  // namespace pipecheck
