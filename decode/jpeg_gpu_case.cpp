// Host side of the GPU decode case: batch, output size, backend choice, verification.
#include "decode/jpeg_gpu_case.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "decode/jpeg_nvjpeg.hpp"

namespace pipecheck {

std::vector<const JpegImage*> fill_gpu_batch(const std::vector<const JpegImage*>& images, int batch_size) {
  std::vector<const JpegImage*> batch;
  if (images.empty()) return batch;
  for (int i = 0; i < batch_size; ++i) batch.push_back(images[i % images.size()]);
  return batch;
}

std::pair<int, int> max_dimensions(const std::vector<const JpegImage*>& images) {
  int width = 0, height = 0;
  for (const JpegImage* image : images) {
    width = std::max(width, image->header.width);
    height = std::max(height, image->header.height);
  }
  return {width, height};
}

GpuBackendChoice choose_gpu_backend(const std::function<void(int backend)>& open_and_decode) {
  GpuBackendChoice choice;
  try {
    open_and_decode(nvjpeg::backend_hardware);
    choice.backend = nvjpeg::backend_hardware;
    choice.name = "hardware (JPEG engine)";
    return choice;
  } catch (const std::exception& error) {
    choice.hardware_reason = error.what();
  }
  try {
    open_and_decode(nvjpeg::backend_default);
    choice.backend = nvjpeg::backend_default;
    choice.name = "default (CUDA)";
  } catch (const std::exception& error) {
    choice.error = error.what();
  }
  return choice;
}

GpuDecodeCheck verify_gpu_decode(const RgbImage& gpu_output, const JpegImage& image) {
  JpegDecoder decoder;
  RgbImage reference;
  const DecodeResult result = decoder.decode(image.bytes.data(), image.bytes.size(), {1, 1}, reference);
  if (!result.ok) return {false, "reference CPU decode of " + image.name + " failed: " + result.message};
  const double error = mean_abs_error(gpu_output, reference);
  if (error < 0) {
    return {false, "GPU output is " + std::to_string(gpu_output.width) + "x" + std::to_string(gpu_output.height) +
                       ", the image is " + std::to_string(reference.width) + "x" + std::to_string(reference.height)};
  }
  constexpr double bound = 3.0;
  char text[160];
  std::snprintf(text, sizeof text, "mean abs error %.2f vs TurboJPEG's decode of %s (bound %.1f)", error,
                image.name.c_str(), bound);
  const std::string where = largest_pixel_difference(gpu_output, reference);
  return {error < bound, text + (where.empty() ? "" : "; " + where)};
}

}  // namespace pipecheck
