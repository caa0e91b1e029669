// Batched JPEG decode on a GPU through nvJPEG into interleaved RGB8 in device memory: what a GPU
// data loader (DALI's decoder, torchvision.io.decode_jpeg on cuda) does. The CUDA and nvJPEG
// calls live in jpeg_gpu_decode.cu; jpeg_gpu_decode_nocuda.cpp is the stub without CUDA.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "decode/jpeg_corpus.hpp"
#include "decode/jpeg_decoder.hpp"
#include "decode/jpeg_nvjpeg.hpp"

namespace pipecheck {

// Whether this build has the CUDA side (false: the stub that throws "not built").
bool gpu_jpeg_decode_built();

class GpuJpegDecoder {
 public:
  // Creates the nvJPEG handle for `backend` (nvjpeg::backend_*) on `device`, a stream, the
  // batched decoder for exactly `batch_size` images, and one output buffer per slot for images
  // up to max_width x max_height. Throws RunError naming the call that failed.
  GpuJpegDecoder(const NvjpegLibrary& library, int device, int backend, int batch_size,
                 int max_width, int max_height);
  ~GpuJpegDecoder();
  GpuJpegDecoder(const GpuJpegDecoder&) = delete;
  GpuJpegDecoder& operator=(const GpuJpegDecoder&) = delete;

  // Decodes exactly batch_size images (nvJPEG re-initialises when the batch size changes) and
  // waits for the stream. Throws RunError naming the call.
  void decode(const std::vector<const JpegImage*>& batch);

  // Image `index` of the last batch, copied back to the host for verification.
  RgbImage download(std::size_t index, int width, int height) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipecheck
