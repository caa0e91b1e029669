// The record of each stage, one file each (stages/<name>_stage.cpp), registered in pipeline
// order by stages/builtin_stages.cpp.
#pragma once

#include "core/stage_spec.hpp"

namespace pipecheck {

StageSpec storage_stage();
StageSpec decode_stage();
StageSpec hostmem_stage();
StageSpec pcie_stage();
StageSpec memory_stage();
StageSpec compute_stage();
StageSpec comm_stage();
StageSpec stress_stage();

}  // namespace pipecheck
