// NVIDIA's nvJPEG loaded at run time (dlopen), for the GPU decode case: builds need no nvJPEG
// header (the CUDA toolkit on build machines may lack it) and runs without it say why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pipecheck {

// The nvJPEG types and constants pipecheck uses, declared from NVIDIA's nvjpeg.h (documented at
// docs.nvidia.com/cuda/nvjpeg; C enums are int-sized, so ints carry them across the ABI).
namespace nvjpeg {

using Status = int;  // nvjpegStatus_t
constexpr Status success = 0;

// nvjpegBackend_t
constexpr int backend_default = 0;
constexpr int backend_hardware = 3;  // the A100/Hopper/Ada/Blackwell JPEG engine; batched only

constexpr int output_rgbi = 5;  // nvjpegOutputFormat_t NVJPEG_OUTPUT_RGBI: interleaved RGB8
constexpr int max_component = 4;

// nvjpegImage_t: for RGBI only channel[0] / pitch[0] are written.
struct Image {
  unsigned char* channel[max_component];
  std::size_t pitch[max_component];
};

struct HandleOpaque;
using Handle = HandleOpaque*;  // nvjpegHandle_t
struct StateOpaque;
using State = StateOpaque*;  // nvjpegJpegState_t

}  // namespace nvjpeg

// The entry points the GPU decode case calls. `stream` is a cudaStream_t.
struct NvjpegApi {
  nvjpeg::Status (*create_ex)(int backend, void* device_allocator, void* pinned_allocator,
                              unsigned flags, nvjpeg::Handle* handle) = nullptr;
  nvjpeg::Status (*destroy)(nvjpeg::Handle) = nullptr;
  nvjpeg::Status (*state_create)(nvjpeg::Handle, nvjpeg::State*) = nullptr;
  nvjpeg::Status (*state_destroy)(nvjpeg::State) = nullptr;
  nvjpeg::Status (*decode_batched_initialize)(nvjpeg::Handle, nvjpeg::State, int batch_size,
                                              int max_cpu_threads, int output_format) = nullptr;
  nvjpeg::Status (*decode_batched)(nvjpeg::Handle, nvjpeg::State, const unsigned char* const* data,
                                   const std::size_t* lengths, nvjpeg::Image* destinations,
                                   void* stream) = nullptr;
};

// The sonames tried, newest first.
const std::vector<std::string>& nvjpeg_sonames();

// One loaded nvJPEG with every entry point of NvjpegApi resolved. Never throws: when no soname
// loads or a symbol is missing, ok() is false and error() says which.
class NvjpegLibrary {
 public:
  explicit NvjpegLibrary(const std::vector<std::string>& sonames = nvjpeg_sonames());
  ~NvjpegLibrary();
  NvjpegLibrary(const NvjpegLibrary&) = delete;
  NvjpegLibrary& operator=(const NvjpegLibrary&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  const std::string& soname() const { return soname_; }
  const NvjpegApi& api() const { return api_; }

 private:
  bool resolve_all(void* library);

  void* handle_ = nullptr;
  std::string soname_;
  std::string error_;
  NvjpegApi api_;
};

// "NVJPEG_STATUS_ARCH_MISMATCH (7)": nvjpegStatus_t by name, as nvjpeg.h spells it.
std::string nvjpeg_status_text(nvjpeg::Status status);

// "nvjpegDecodeBatched on GPU 0: NVJPEG_STATUS_BAD_JPEG (3)", or "" on success.
std::string nvjpeg_call_error(const char* call, int device, nvjpeg::Status status);

// What the GPU decode case reports when it cannot measure: "skipped: no nvJPEG (...)".
std::string nvjpeg_skip_status(const NvjpegLibrary& library);

}  // namespace pipecheck
