// Dip onsets per GPU, grouped into events across GPUs, and who starts them.
#include "watch/gpu_sawtooth.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "watch/periodicity.hpp"

namespace pipecheck {

namespace {

struct Onset {
  std::size_t sample;
  int gpu;
};

std::vector<Onset> dip_onsets(const std::vector<GpuSeries>& gpus, const SawtoothOptions& options) {
  std::vector<Onset> onsets;
  for (const auto& gpu : gpus) {
    const double level = median_of(gpu.util);
    if (level < options.min_busy_pct) continue;
    const double threshold = options.dip_share * level;
    for (std::size_t i = 1; i < gpu.util.size(); ++i) {
      if (gpu.util[i] < threshold && gpu.util[i - 1] >= threshold) onsets.push_back({i, gpu.index});
    }
  }
  std::stable_sort(onsets.begin(), onsets.end(), [](const Onset& a, const Onset& b) { return a.sample < b.sample; });
  return onsets;
}

}  // namespace

Sawtooth find_leading_dipper(const std::vector<double>& times, const std::vector<GpuSeries>& gpus,
                             const SawtoothOptions& options) {
  Sawtooth result;
  if (gpus.size() < 2) return result;
  const std::vector<Onset> onsets = dip_onsets(gpus, options);
  std::map<int, int> leads;
  std::map<int, double> lead_time;
  std::size_t k = 0;
  while (k < onsets.size()) {
    // An event: the first onset and every other GPU's first onset within the window after it.
    const Onset first = onsets[k];
    std::map<int, std::size_t> members{{first.gpu, first.sample}};
    std::size_t j = k + 1;
    while (j < onsets.size() && onsets[j].sample <= first.sample + static_cast<std::size_t>(options.window_samples)) {
      members.emplace(onsets[j].gpu, onsets[j].sample);
      ++j;
    }
    k = j;
    if (members.size() < 2) continue;
    ++result.events;
    std::size_t second = SIZE_MAX;
    for (const auto& [gpu, sample] : members) {
      if (gpu != first.gpu) second = std::min(second, sample);
    }
    if (second == first.sample) continue;  // dipped together: nobody led
    ++leads[first.gpu];
    const std::size_t last = std::min(second, times.size() - 1);
    lead_time[first.gpu] += times[last] - times[std::min(first.sample, times.size() - 1)];
  }
  for (const auto& [gpu, count] : leads) {
    if (count > result.led) {
      result.leader = gpu;
      result.led = count;
    }
  }
  if (result.led > 0) result.mean_lead_s = lead_time[result.leader] / result.led;
  result.found = result.events >= options.min_events &&
                 static_cast<double>(result.led) >= options.lead_share * static_cast<double>(result.events);
  return result;
}

}  // namespace pipecheck
