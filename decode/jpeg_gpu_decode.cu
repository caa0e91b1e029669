// nvJPEG batched decode on one GPU: handle, state, stream and per-slot output buffers, all
// released in reverse order. Host logic (which backend, verification, rates) is in the probe.
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "decode/jpeg_gpu_decode.hpp"

namespace pipecheck {

bool gpu_jpeg_decode_built() { return true; }

struct GpuJpegDecoder::Impl {
  const NvjpegApi* api = nullptr;
  int device = 0;
  int batch_size = 0;
  std::size_t pitch = 0;  // bytes per output row: max_width x 3
  std::size_t slot_bytes = 0;
  nvjpeg::Handle handle = nullptr;
  nvjpeg::State state = nullptr;
  cudaStream_t stream = nullptr;
  unsigned char* output = nullptr;  // batch_size slots of slot_bytes
  std::vector<nvjpeg::Image> destinations;

  void check(const char* call, nvjpeg::Status status) const {
    if (status != nvjpeg::success) throw RunError(nvjpeg_call_error(call, device, status));
  }
  void release() {
    if (state != nullptr) api->state_destroy(state);
    if (handle != nullptr) api->destroy(handle);
    if (output != nullptr) cudaFree(output);
    if (stream != nullptr) cudaStreamDestroy(stream);
    state = nullptr, handle = nullptr, output = nullptr, stream = nullptr;
  }
};

GpuJpegDecoder::GpuJpegDecoder(const NvjpegLibrary& library, int device, int backend, int batch_size,
                               int max_width, int max_height)
    : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  d.api = &library.api();
  d.device = device;
  d.batch_size = batch_size;
  d.pitch = static_cast<std::size_t>(max_width) * 3;
  d.slot_bytes = d.pitch * static_cast<std::size_t>(max_height);
  try {
    PIPECHECK_CUDA(cudaSetDevice(device), device);
    PIPECHECK_CUDA(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), device);
    PIPECHECK_CUDA(cudaMalloc(&d.output, d.slot_bytes * batch_size), device);
    d.check("nvjpegCreateEx", d.api->create_ex(backend, nullptr, nullptr, 0, &d.handle));
    d.check("nvjpegJpegStateCreate", d.api->state_create(d.handle, &d.state));
    // max_cpu_threads is ignored by current nvJPEG releases; 1 as NVIDIA's samples pass.
    d.check("nvjpegDecodeBatchedInitialize",
            d.api->decode_batched_initialize(d.handle, d.state, batch_size, 1, nvjpeg::output_rgbi));
  } catch (...) {
    d.release();
    throw;
  }
  d.destinations.resize(batch_size);
  for (int i = 0; i < batch_size; ++i) {
    nvjpeg::Image& image = d.destinations[i];
    image = {};
    image.channel[0] = d.output + d.slot_bytes * i;
    image.pitch[0] = d.pitch;
  }
}

GpuJpegDecoder::~GpuJpegDecoder() {
  if (impl_) impl_->release();
}

void GpuJpegDecoder::decode(const std::vector<const JpegImage*>& batch) {
  Impl& d = *impl_;
  if (static_cast<int>(batch.size()) != d.batch_size) {
    throw RunError("GPU JPEG decode: a batch of " + std::to_string(batch.size()) + " images, expected " +
                   std::to_string(d.batch_size));
  }
  std::vector<const unsigned char*> data(batch.size());
  std::vector<std::size_t> lengths(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    data[i] = batch[i]->bytes.data();
    lengths[i] = batch[i]->bytes.size();
  }
  d.check("nvjpegDecodeBatched", d.api->decode_batched(d.handle, d.state, data.data(), lengths.data(),
                                                       d.destinations.data(), d.stream));
  PIPECHECK_CUDA(cudaStreamSynchronize(d.stream), d.device);
}

RgbImage GpuJpegDecoder::download(std::size_t index, int width, int height) const {
  const Impl& d = *impl_;
  RgbImage image{width, height, std::vector<unsigned char>(static_cast<std::size_t>(width) * height * 3)};
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  PIPECHECK_CUDA(cudaMemcpy2D(image.pixels.data(), row, d.destinations.at(index).channel[0], d.pitch, row,
                              height, cudaMemcpyDeviceToHost),
                 d.device);
  return image;
}

}  // namespace pipecheck
