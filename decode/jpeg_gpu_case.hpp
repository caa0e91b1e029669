// Host logic of the GPU decode case, apart from the CUDA calls so it is tested without a GPU:
// the batch, the output size, the backend choice (the hardware JPEG engine first, nvJPEG's
// default CUDA backend when the engine is absent or refuses the images) and the verification.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "decode/jpeg_corpus.hpp"
#include "decode/jpeg_decoder.hpp"

namespace pipecheck {

// `batch_size` images taken from `images` in turn (repeating when there are fewer), because
// nvJPEG's batched decoder is initialised for one fixed batch size.
std::vector<const JpegImage*> fill_gpu_batch(const std::vector<const JpegImage*>& images, int batch_size);

// The largest width and the largest height among `images`: every output slot fits any of them.
std::pair<int, int> max_dimensions(const std::vector<const JpegImage*>& images);

struct GpuBackendChoice {
  int backend = -1;             // nvjpeg::backend_*; -1 when none worked
  std::string name;             // "hardware (JPEG engine)", "default (CUDA)"
  std::string hardware_reason;  // why the hardware engine was not used, "" when it was
  std::string error;            // why no backend worked
};

// Tries the hardware backend, then the default one. `open_and_decode(backend)` builds the
// decoder and decodes one batch, throwing on failure; the first that returns is chosen.
GpuBackendChoice choose_gpu_backend(const std::function<void(int backend)>& open_and_decode);

struct GpuDecodeCheck {
  bool ok = false;
  std::string how;
};

// Compares the GPU's RGB output for `image` with TurboJPEG's accurate decode of the same bytes.
// Two correct decoders differ by IDCT rounding and chroma upsampling (a level or two on
// average); a wrong decode (swapped channels, wrong pitch, garbage) is tens of levels off.
GpuDecodeCheck verify_gpu_decode(const RgbImage& gpu_output, const JpegImage& image);

}  // namespace pipecheck
