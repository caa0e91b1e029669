// The wall clock as the records write it (see utc_clock.hpp).
#include "core/utc_clock.hpp"

#include <cstdio>
#include <ctime>

namespace pipecheck {

std::string utc_now_iso_ms() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  std::tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char buffer[48];
  const std::size_t used = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buffer + used, sizeof buffer - used, ".%03ldZ", now.tv_nsec / 1000000);
  return buffer;
}

}  // namespace pipecheck
