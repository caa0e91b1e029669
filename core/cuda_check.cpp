// The message format of CUDA/cuBLAS failures; the CUDA-typed checks are in cuda_check_gpu.cu.
#include "core/cuda_check.hpp"

namespace pipecheck {

std::string gpu_call_message(const std::string& call, int device, const std::string& bus_id,
                             const std::string& error_name, const std::string& error_text) {
  std::string text = call;
  if (device >= 0) {
    text += " on GPU " + std::to_string(device);
    if (!bus_id.empty()) text += " (" + bus_id + ")";
  }
  text += ": " + error_name;
  if (!error_text.empty() && error_text != error_name) text += ": " + error_text;
  return text;
}

}  // namespace pipecheck
