// Without a CUDA toolkit the GPU decode case cannot be built; it says so instead of measuring.
#include "core/errors.hpp"
#include "decode/jpeg_gpu_decode.hpp"

namespace pipecheck {

struct GpuJpegDecoder::Impl {};

bool gpu_jpeg_decode_built() { return false; }

GpuJpegDecoder::GpuJpegDecoder(const NvjpegLibrary&, int, int, int, int, int) {
  throw RunError("GPU JPEG decode: not built (no CUDA toolkit at configure time)");
}
GpuJpegDecoder::~GpuJpegDecoder() = default;
void GpuJpegDecoder::decode(const std::vector<const JpegImage*>&) {}
RgbImage GpuJpegDecoder::download(std::size_t, int, int) const { return {}; }

}  // namespace pipecheck
