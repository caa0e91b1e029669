// The stage keys as measurements, reports, baselines and `--only` spell them. The one place a
// stage's name is written; everything else about a stage is its record in stages/ (StageSpec).
// Probes name their stage with these (they sit below the registry); so do the findings and the
// budget, which read particular stages' figures.
#pragma once

namespace pipecheck::stage_name {

inline constexpr char storage[] = "storage";
inline constexpr char decode[] = "decode";
inline constexpr char hostmem[] = "hostmem";
inline constexpr char pcie[] = "pcie";
inline constexpr char memory[] = "memory";
inline constexpr char compute[] = "compute";
inline constexpr char comm[] = "comm";
inline constexpr char stress[] = "stress";

}  // namespace pipecheck::stage_name
