// The watchdog thread: wakes every poll interval and fires each passed deadline once.
#include "stress/watchdog.hpp"

namespace pipecheck {

Watchdog::Watchdog(HangHandler on_hang, std::chrono::milliseconds poll)
    : on_hang_(std::move(on_hang)), poll_(poll), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

int Watchdog::add(std::string name) {
  const std::lock_guard lock(mutex_);
  entries_.push_back(Entry{std::move(name), {}, false, false, {}, {}});
  return static_cast<int>(entries_.size()) - 1;
}

void Watchdog::arm(int id, std::string what, std::chrono::milliseconds deadline) {
  const std::lock_guard lock(mutex_);
  Entry& entry = entries_.at(static_cast<std::size_t>(id));
  entry.what = std::move(what);
  entry.armed = true;
  entry.budget = deadline;
  entry.deadline = Clock::now() + deadline;
}

void Watchdog::disarm(int id) {
  const std::lock_guard lock(mutex_);
  entries_.at(static_cast<std::size_t>(id)).armed = false;
}

bool Watchdog::hung(int id) const {
  const std::lock_guard lock(mutex_);
  return entries_.at(static_cast<std::size_t>(id)).fired;
}

std::vector<HangReport> Watchdog::hangs() const {
  const std::lock_guard lock(mutex_);
  return hangs_;
}

void Watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, poll_, [this] { return stop_; });
    if (stop_) break;
    std::vector<HangReport> fired;
    const auto now = Clock::now();
    for (std::size_t id = 0; id < entries_.size(); ++id) {
      Entry& entry = entries_[id];
      if (!entry.armed || entry.fired || now < entry.deadline) continue;
      entry.fired = true;
      HangReport report{static_cast<int>(id), entry.name, entry.what,
                        std::chrono::duration<double>(entry.budget).count()};
      hangs_.push_back(report);
      fired.push_back(std::move(report));
    }
    // The handler writes files and takes other locks: never under ours.
    lock.unlock();
    for (const auto& report : fired) {
      if (on_hang_) on_hang_(report);
    }
    lock.lock();
  }
}

}  // namespace pipecheck
