// Loading the CUDA driver API with dlopen; its failures become reason strings.
#include "inventory/cuda_driver_library.hpp"

#include <dlfcn.h>

#include <utility>
#include <vector>

#include "core/dl_symbol.hpp"

namespace pipecheck {

CudaDriverLibrary::CudaDriverLibrary(std::string path) : path_(std::move(path)) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace; a probe that links the
  // CUDA runtime gets the same already-loaded library from its own dlopen.
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    error_ = path_ + " not found (no NVIDIA driver): " + (why ? why : "unknown dlopen error");
    return;
  }
  bind_symbol(handle_, "cuInit", api_.init);
  bind_symbol(handle_, "cuDriverGetVersion", api_.driver_get_version);
  bind_symbol(handle_, "cuGetErrorString", api_.get_error_string);
  bind_symbol(handle_, "cuDeviceGetCount", api_.device_get_count);
  bind_symbol(handle_, "cuDeviceGet", api_.device_get);
  bind_symbol(handle_, "cuDeviceGetName", api_.device_get_name);
  bind_symbol(handle_, "cuDeviceTotalMem_v2", api_.device_total_mem);
  bind_symbol(handle_, "cuDeviceGetAttribute", api_.device_get_attribute);
  bind_symbol(handle_, "cuDevicePrimaryCtxRetain", api_.primary_ctx_retain);
  bind_symbol(handle_, "cuDevicePrimaryCtxRelease_v2", api_.primary_ctx_release);
  bind_symbol(handle_, "cuCtxSetCurrent", api_.ctx_set_current);
  bind_symbol(handle_, "cuMemAlloc_v2", api_.mem_alloc);
  bind_symbol(handle_, "cuMemFree_v2", api_.mem_free);
  bind_symbol(handle_, "cuMemsetD32_v2", api_.memset_d32);
  bind_symbol(handle_, "cuMemcpyDtoH_v2", api_.memcpy_dtoh);

  if (const char* missing = first_missing_symbol({
      {"cuInit", api_.init != nullptr},
      {"cuDriverGetVersion", api_.driver_get_version != nullptr},
      {"cuDeviceGetCount", api_.device_get_count != nullptr},
      {"cuDeviceGet", api_.device_get != nullptr},
      {"cuDeviceGetAttribute", api_.device_get_attribute != nullptr},
      })) {
    error_ = path_ + " lacks " + missing + " (not the CUDA driver, or one too old)";
    close();
    return;
  }
  // Answers without cuInit: what a too-old driver supports is worth knowing when cuInit fails.
  int version = 0;
  if (api_.driver_get_version(&version) == cu::success) driver_version_ = version;
  const cu::Result rc = api_.init(0);
  if (rc != cu::success) {
    error_ = error_text("cuInit", rc);
    return;  // keep the library: error_string and the version still answer
  }
  initialised_ = true;
}

CudaDriverLibrary::~CudaDriverLibrary() { close(); }

void CudaDriverLibrary::close() {
  // Never dlclose libcuda: the driver keeps threads and state that outlive an unload.
  handle_ = nullptr;
  initialised_ = false;
  api_ = CudaDriverApi{};
}

std::string CudaDriverLibrary::error_string(cu::Result code) const {
  const char* text = nullptr;
  if (api_.get_error_string && api_.get_error_string(code, &text) == cu::success && text && *text) {
    return text;
  }
  switch (code) {
    case cu::success: return "no error";
    case cu::error_not_initialized: return "initialization error";
    case cu::error_no_device: return "no CUDA-capable device is detected";
    default: return "CUDA error " + std::to_string(code);
  }
}

std::string CudaDriverLibrary::error_text(std::string_view call_name, cu::Result code,
                                          std::string_view device) const {
  std::string text(call_name);
  if (!device.empty()) {
    text += " (";
    text += device;
    text += ")";
  }
  return text + ": " + error_string(code) + " (" + std::to_string(code) + ")";
}

std::string cuda_device_answers(const CudaDriverLibrary& cuda, int ordinal) {
  if (!cuda.ok()) return cuda.error();
  const CudaDriverApi& api = cuda.api();
  if (!api.primary_ctx_retain || !api.primary_ctx_release || !api.ctx_set_current || !api.mem_alloc ||
      !api.mem_free || !api.memset_d32 || !api.memcpy_dtoh) {
    return "this driver lacks the context and memory calls";
  }
  const std::string where = "GPU " + std::to_string(ordinal);
  cu::Device device = 0;
  cu::Result rc = api.device_get(&device, ordinal);
  if (rc != cu::success) return cuda.error_text("cuDeviceGet", rc, where);
  cu::Context context = nullptr;
  rc = api.primary_ctx_retain(&context, device);
  if (rc != cu::success) return cuda.error_text("cuDevicePrimaryCtxRetain", rc, where);
  std::string failure;
  rc = api.ctx_set_current(context);
  if (rc != cu::success) failure = cuda.error_text("cuCtxSetCurrent", rc, where);
  constexpr std::size_t words = 16384;  // 64 KiB
  constexpr unsigned pattern = 0xa5c3e10fu;
  cu::DevicePointer memory = 0;
  if (failure.empty()) {
    rc = api.mem_alloc(&memory, words * sizeof(unsigned));
    if (rc != cu::success) failure = cuda.error_text("cuMemAlloc_v2", rc, where);
  }
  if (failure.empty()) {
    std::vector<unsigned> back(words, 0);
    rc = api.memset_d32(memory, pattern, words);
    if (rc != cu::success) {
      failure = cuda.error_text("cuMemsetD32_v2", rc, where);
    } else if ((rc = api.memcpy_dtoh(back.data(), memory, words * sizeof(unsigned))) != cu::success) {
      failure = cuda.error_text("cuMemcpyDtoH_v2", rc, where);
    } else {
      for (std::size_t i = 0; i < words; ++i) {
        if (back[i] != pattern) {
          failure = where + ": word " + std::to_string(i) + " of a 64 KiB pattern read back wrong";
          break;
        }
      }
    }
    api.mem_free(memory);
  }
  api.ctx_set_current(nullptr);
  api.primary_ctx_release(device);
  return failure;
}

}  // namespace pipecheck
