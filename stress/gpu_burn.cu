// The CUDA side of the GPU burn: cuBLAS GEMMs into a ring of results, a compare kernel per
// result against the reference, a memory-pattern test, and every wait on the GPU polled against
// the watchdog's deadline (cudaEventQuery, never a blocking synchronize) so a hang is reported.
// --inject-faults: stress/fault_injection decides which elements; flip_elements applies it
// between the GEMM (or the pattern write) and its check.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "stress/burn_verify.hpp"
#include "stress/fault_injection.hpp"
#include "stress/gpu_burn.hpp"
#include "stress/verify_rule.hpp"

namespace pipecheck {

namespace {

// Thrown when the watchdog declared this worker hung: the worker leaves without touching the
// device again (freeing memory would block on the stuck context too).
struct WorkerAbandoned {};

constexpr int reference_checks = 64;  // C elements spot-checked against FP64 dot products
constexpr int threads_per_block = 256;

// The one CUDA error helper: the call, the GPU, CUDA's own text.
void cuda_check(cudaError_t rc, const char* call, const std::string& gpu) {
  if (rc == cudaSuccess) return;
  cudaGetLastError();
  throw RunError(std::string(call) + " (" + gpu + "): " + cudaGetErrorString(rc));
}

// The one cuBLAS error helper.
void cublas_check(cublasStatus_t rc, const char* call, const std::string& gpu) {
  if (rc == CUBLAS_STATUS_SUCCESS) return;
  throw RunError(std::string(call) + " (" + gpu + "): " + cublasGetStatusString(rc));
}

struct DtypeInfo {
  cudaDataType_t ab_type;
  cudaDataType_t c_type;
  cublasComputeType_t compute;
  std::size_t ab_size;
  std::size_t c_size;
};

DtypeInfo dtype_info(BurnDtype dtype) {
  switch (dtype) {
    case BurnDtype::fp64:
      return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8};
    case BurnDtype::fp32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4};
    case BurnDtype::tf32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4};
    case BurnDtype::fp16:
      return {CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4};
    case BurnDtype::bf16:
      return {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4};
  }
  return {CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2, 4};
}

__device__ double uniform_of(std::uint64_t index, std::uint64_t seed) {
  std::uint64_t x = (index + 1) * 0x9E3779B97F4A7C15ull ^ seed;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<double>(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;  // [-1, 1)
}

template <typename T>
__device__ T from_double(double v);
template <>
__device__ double from_double<double>(double v) { return v; }
template <>
__device__ float from_double<float>(double v) { return static_cast<float>(v); }
template <>
__device__ __half from_double<__half>(double v) { return __double2half(v); }
template <>
__device__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}

__device__ double to_double(double v) { return v; }
__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__global__ void fill_uniform(T* data, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    data[i] = from_double<T>(uniform_of(i, seed));
  }
}

// Counts elements of `result` that burn_result_wrong() calls wrong into *wrong, and lowers
// *first to the lowest wrong index (to name it); atomics only in a thread that found any, so a
// healthy GPU pays for none. check_results() in burn_verify.cpp is its host replay.
template <typename T>
__global__ void compare_results(const T* result, const T* reference, std::uint64_t count,
                                double tolerance, unsigned long long* wrong, unsigned long long* first) {
  unsigned long long local = 0;
  unsigned long long lowest = ~0ull;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (burn_result_wrong(result[i], reference[i], tolerance) && local++ == 0) lowest = i;
  }
  if (local) {
    atomicAdd(wrong, local);
    atomicMin(first, lowest);
  }
}

// One block per checked element: the exact (FP64) dot product of row i of A and column j of B,
// the sum of |a x b| for the error bound, and the reference's element, gathered for the host.
template <typename AB, typename C>
__global__ void reference_dots(const AB* a, const AB* b, const C* reference, int n,
                               const int* rows, const int* cols, double* exact, double* abs_sum,
                               double* element) {
  __shared__ double sums[threads_per_block];
  __shared__ double abs_sums[threads_per_block];
  const int i = rows[blockIdx.x];
  const int j = cols[blockIdx.x];
  double sum = 0, abs_total = 0;
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    // Column-major, as cuBLAS: A(i,k) = a[i + k n], B(k,j) = b[k + j n].
    const double product = to_double(a[i + std::uint64_t(k) * n]) * to_double(b[k + std::uint64_t(j) * n]);
    sum += product;
    abs_total += product < 0 ? -product : product;
  }
  sums[threadIdx.x] = sum;
  abs_sums[threadIdx.x] = abs_total;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      sums[threadIdx.x] += sums[threadIdx.x + stride];
      abs_sums[threadIdx.x] += abs_sums[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    exact[blockIdx.x] = sums[0];
    abs_sum[blockIdx.x] = abs_sums[0];
    element[blockIdx.x] = to_double(reference[i + std::uint64_t(j) * n]);
  }
}

// XORs fault_mask into the listed elements (4 or 8 bytes each) of a result or memory buffer.
__global__ void flip_elements(void* base, const std::uint64_t* indices, std::uint64_t count,
                              unsigned element_bytes, unsigned long long mask) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (element_bytes == 8) {
      static_cast<unsigned long long*>(base)[indices[i]] ^= mask;
    } else {
      static_cast<unsigned int*>(base)[indices[i]] ^= static_cast<unsigned int>(mask);
    }
  }
}

// One element: the index as an argument, so a GEMM fault needs no copy.
__global__ void flip_element(void* base, std::uint64_t index, unsigned element_bytes, unsigned long long mask) {
  if (element_bytes == 8) {
    static_cast<unsigned long long*>(base)[index] ^= mask;
  } else {
    static_cast<unsigned int*>(base)[index] ^= static_cast<unsigned int>(mask);
  }
}

__global__ void memtest_write(std::uint32_t* words, std::uint64_t count, int pattern) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    words[i] = memtest_word(pattern, i);
  }
}

// check_memtest() in burn_verify.cpp is its host replay; *first gets the lowest wrong word.
__global__ void memtest_check(const std::uint32_t* words, std::uint64_t count, int pattern,
                              unsigned long long* errors, unsigned long long* first) {
  unsigned long long local = 0;
  unsigned long long lowest = ~0ull;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (words[i] != memtest_word(pattern, i) && local++ == 0) lowest = i;
  }
  if (local) {
    atomicAdd(errors, local);
    atomicMin(first, lowest);
  }
}

class GpuBurnWorker final : public BurnWorker {
 public:
  explicit GpuBurnWorker(GpuBurnConfig config)
      : config_(std::move(config)), info_(dtype_info(config_.dtype)), gemm_faults_(config_.inject_faults),
        memory_faults_(config_.inject_faults) {}

  void run(WorkerContext& ctx) override {
    try {
      setup(ctx);
      check_reference(ctx);
      if (memory_words_) {
        for (int pattern = 0; pattern < memtest_pattern_count; ++pattern) memtest_pass(ctx, pattern);
      }
      burn(ctx);
      release();
    } catch (const WorkerAbandoned&) {
      // The watchdog reported the hang; leave the stuck context alone.
    } catch (...) {
      release();
      throw;
    }
  }

 private:
  const std::string& gpu() const { return config_.label; }

  void setup(WorkerContext& ctx);
  void allocate_gemm_buffers(WorkerContext& ctx);
  void allocate_memtest(WorkerContext& ctx);
  void check_reference(WorkerContext& ctx);
  void burn(WorkerContext& ctx);
  void enqueue_batch(int slot_parity, WorkerContext& ctx);
  void inject_gemm_fault(void* result, WorkerContext& ctx);
  void inject_memory_faults(WorkerContext& ctx);
  void memtest_pass(WorkerContext& ctx, int pattern);
  void gemm(void* c);
  void compare(const void* c);
  void wait(cudaEvent_t event, WorkerContext& ctx, const std::string& what);
  void release_reference_check();
  void release();
  void name_first_failures(WorkerContext& ctx, const unsigned long long* counters, int pattern);
  unsigned blocks_for(std::uint64_t count) const {
    return static_cast<unsigned>(std::min<std::uint64_t>((count + threads_per_block - 1) / threads_per_block,
                                                         std::uint64_t(sm_count_) * 8));
  }

  GpuBurnConfig config_;
  DtypeInfo info_;
  int n_ = 0;
  int ring_ = 0;
  int sm_count_ = 1;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  cudaEvent_t events_[2] = {nullptr, nullptr};
  void* a_ = nullptr;
  void* b_ = nullptr;
  void* reference_ = nullptr;
  std::vector<void*> results_;
  // [0] wrong results, [1] memory errors, [2] lowest wrong result index, [3] lowest wrong word.
  unsigned long long* device_counters_ = nullptr;
  unsigned long long* host_counters_ = nullptr;    // pinned: [parity][kCounters]
  static constexpr int kCounters = 4;
  bool wrong_named_ = false;   // the first wrong result is named once, in a note
  bool memory_named_ = false;  // likewise the first wrong memory-test word
  std::uint32_t* memory_ = nullptr;
  std::uint64_t memory_words_ = 0;
  int* check_indices_ = nullptr;        // check_reference's rows then columns
  double* check_device_out_ = nullptr;  // its exact dots, |a||b| sums and GEMM elements
  double* check_host_out_ = nullptr;    // pinned copy of check_device_out_
  FaultInjector gemm_faults_;
  FaultInjector memory_faults_;
  std::uint64_t* fault_indices_ = nullptr;  // the memory faults' word indices, on the device
};

void GpuBurnWorker::setup(WorkerContext& ctx) {
  cuda_check(cudaSetDevice(config_.cuda_index), "cudaSetDevice", gpu());
  cuda_check(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, config_.cuda_index),
             "cudaDeviceGetAttribute", gpu());
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate", gpu());
  for (auto& event : events_) {
    cuda_check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate", gpu());
  }
  cublas_check(cublasCreate(&handle_), "cublasCreate", gpu());
  cublas_check(cublasSetStream(handle_, stream_), "cublasSetStream", gpu());
  if (config_.dtype == BurnDtype::tf32) {
    cublas_check(cublasSetMathMode(handle_, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode", gpu());
  }
  cuda_check(cudaMalloc(&device_counters_, kCounters * sizeof(unsigned long long)), "cudaMalloc", gpu());
  cuda_check(cudaMemsetAsync(device_counters_, 0, 2 * sizeof(unsigned long long), stream_),
             "cudaMemsetAsync", gpu());
  // The lowest wrong indices start above every index.
  cuda_check(cudaMemsetAsync(device_counters_ + 2, 0xff, 2 * sizeof(unsigned long long), stream_),
             "cudaMemsetAsync", gpu());
  cuda_check(cudaMallocHost(&host_counters_, 2 * kCounters * sizeof(unsigned long long)), "cudaMallocHost", gpu());
  std::fill(host_counters_, host_counters_ + 2 * kCounters, 0ull);
  allocate_gemm_buffers(ctx);
  if (config_.memtest) allocate_memtest(ctx);
}

void GpuBurnWorker::allocate_gemm_buffers(WorkerContext& ctx) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", gpu());
  // The GEMM buffers take at most half the free memory; the memory test gets the rest. A small
  // GPU gets fewer results per batch first, then a smaller matrix.
  n_ = config_.matrix_n;
  ring_ = std::max(config_.results_per_batch, 1);
  auto needed = [&] {
    const std::size_t elements = std::size_t(n_) * n_;
    return 2 * elements * info_.ab_size + (ring_ + 1) * elements * info_.c_size;
  };
  while (needed() > free_bytes / 2 && (ring_ > 1 || n_ > 1024)) {
    if (ring_ > 1) {
      --ring_;
    } else {
      n_ /= 2;
    }
  }
  const std::size_t elements = std::size_t(n_) * n_;
  cuda_check(cudaMalloc(&a_, elements * info_.ab_size), "cudaMalloc", gpu());
  cuda_check(cudaMalloc(&b_, elements * info_.ab_size), "cudaMalloc", gpu());
  cuda_check(cudaMalloc(&reference_, elements * info_.c_size), "cudaMalloc", gpu());
  results_.assign(static_cast<std::size_t>(ring_), nullptr);
  for (auto& result : results_) cuda_check(cudaMalloc(&result, elements * info_.c_size), "cudaMalloc", gpu());

  const unsigned blocks = blocks_for(elements);
  switch (config_.dtype) {
    case BurnDtype::fp64:
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<double*>(a_), elements, 1);
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<double*>(b_), elements, 2);
      break;
    case BurnDtype::fp32:
    case BurnDtype::tf32:
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<float*>(a_), elements, 1);
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<float*>(b_), elements, 2);
      break;
    case BurnDtype::fp16:
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<__half*>(a_), elements, 1);
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<__half*>(b_), elements, 2);
      break;
    case BurnDtype::bf16:
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<__nv_bfloat16*>(a_), elements, 1);
      fill_uniform<<<blocks, threads_per_block, 0, stream_>>>(static_cast<__nv_bfloat16*>(b_), elements, 2);
      break;
  }
  cuda_check(cudaGetLastError(), "fill_uniform<<<>>>", gpu());
  ctx.note(gpu() + ": " + burn_dtype_name(config_.dtype) + " GEMM " + std::to_string(n_) + "^3, " +
           std::to_string(ring_) + " results per batch, each compared with the reference");
}

void GpuBurnWorker::allocate_memtest(WorkerContext& ctx) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", gpu());
  std::size_t bytes = static_cast<std::size_t>(static_cast<double>(free_bytes) * config_.memtest_fraction);
  // Free memory moves (other processes, the allocator's granularity): back off and retry.
  for (int attempt = 0; attempt < 8 && bytes >= (64u << 20); ++attempt) {
    if (cudaMalloc(&memory_, bytes) == cudaSuccess) {
      memory_words_ = bytes / sizeof(std::uint32_t);
      ctx.note(gpu() + ": memory test over " + std::to_string(bytes >> 20) + " MiB (" +
               std::to_string(memtest_pattern_count) + " patterns)");
      return;
    }
    cudaGetLastError();
    memory_ = nullptr;
    bytes = bytes / 10 * 9;
  }
  ctx.note(gpu() + ": memory test skipped: could not allocate 64 MiB");
}

void GpuBurnWorker::gemm(void* c) {
  if (config_.dtype == BurnDtype::fp64) {
    const double alpha = 1.0, beta = 0.0;
    cublas_check(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, a_, info_.ab_type, n_,
                              b_, info_.ab_type, n_, &beta, c, info_.c_type, n_, info_.compute,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx", gpu());
  } else {
    const float alpha = 1.0f, beta = 0.0f;
    cublas_check(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha, a_, info_.ab_type, n_,
                              b_, info_.ab_type, n_, &beta, c, info_.c_type, n_, info_.compute,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx", gpu());
  }
}

void GpuBurnWorker::compare(const void* c) {
  const std::uint64_t elements = std::uint64_t(n_) * n_;
  if (config_.dtype == BurnDtype::fp64) {
    compare_results<<<blocks_for(elements), threads_per_block, 0, stream_>>>(
        static_cast<const double*>(c), static_cast<const double*>(reference_), elements,
        config_.verify_tolerance, device_counters_, device_counters_ + 2);
  } else {
    compare_results<<<blocks_for(elements), threads_per_block, 0, stream_>>>(
        static_cast<const float*>(c), static_cast<const float*>(reference_), elements,
        config_.verify_tolerance, device_counters_, device_counters_ + 2);
  }
  cuda_check(cudaGetLastError(), "compare_results<<<>>>", gpu());
}

void GpuBurnWorker::wait(cudaEvent_t event, WorkerContext& ctx, const std::string& what) {
  ctx.arm(what);
  for (;;) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaSuccess) break;
    if (rc != cudaErrorNotReady) {
      ctx.disarm();
      cuda_check(rc, ("cudaEventQuery after " + what).c_str(), gpu());
    }
    if (ctx.hung()) throw WorkerAbandoned{};
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ctx.disarm();
}

void GpuBurnWorker::check_reference(WorkerContext& ctx) {
  gemm(reference_);
  // Elements spread over the matrix; the same ones every run.
  std::vector<int> rows(reference_checks), cols(reference_checks);
  for (int k = 0; k < reference_checks; ++k) {
    rows[k] = static_cast<int>((std::uint64_t(k) * 2654435761u + 17) % std::uint64_t(n_));
    cols[k] = static_cast<int>((std::uint64_t(k) * 40503u + 101) % std::uint64_t(n_));
  }
  // Members, not locals: release() frees them when a later step throws, and a hung GPU
  // (WorkerAbandoned) leaves them alone like everything else on its stuck context.
  cuda_check(cudaMalloc(&check_indices_, 2 * reference_checks * sizeof(int)), "cudaMalloc", gpu());
  cuda_check(cudaMalloc(&check_device_out_, 3 * reference_checks * sizeof(double)), "cudaMalloc", gpu());
  cuda_check(cudaMallocHost(&check_host_out_, 3 * reference_checks * sizeof(double)), "cudaMallocHost", gpu());
  int* const device_indices = check_indices_;
  double* const device_out = check_device_out_;
  double* const host_out = check_host_out_;
  cuda_check(cudaMemcpyAsync(device_indices, rows.data(), reference_checks * sizeof(int),
                             cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync", gpu());
  cuda_check(cudaMemcpyAsync(device_indices + reference_checks, cols.data(), reference_checks * sizeof(int),
                             cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync", gpu());
  double* exact = device_out;
  double* abs_sum = device_out + reference_checks;
  double* element = device_out + 2 * reference_checks;
  const int* r = device_indices;
  const int* c = device_indices + reference_checks;
  switch (config_.dtype) {
    case BurnDtype::fp64:
      reference_dots<<<reference_checks, threads_per_block, 0, stream_>>>(
          static_cast<const double*>(a_), static_cast<const double*>(b_), static_cast<const double*>(reference_),
          n_, r, c, exact, abs_sum, element);
      break;
    case BurnDtype::fp32:
    case BurnDtype::tf32:
      reference_dots<<<reference_checks, threads_per_block, 0, stream_>>>(
          static_cast<const float*>(a_), static_cast<const float*>(b_), static_cast<const float*>(reference_),
          n_, r, c, exact, abs_sum, element);
      break;
    case BurnDtype::fp16:
      reference_dots<<<reference_checks, threads_per_block, 0, stream_>>>(
          static_cast<const __half*>(a_), static_cast<const __half*>(b_), static_cast<const float*>(reference_),
          n_, r, c, exact, abs_sum, element);
      break;
    case BurnDtype::bf16:
      reference_dots<<<reference_checks, threads_per_block, 0, stream_>>>(
          static_cast<const __nv_bfloat16*>(a_), static_cast<const __nv_bfloat16*>(b_),
          static_cast<const float*>(reference_), n_, r, c, exact, abs_sum, element);
      break;
  }
  cuda_check(cudaGetLastError(), "reference_dots<<<>>>", gpu());
  cuda_check(cudaMemcpyAsync(host_out, device_out, 3 * reference_checks * sizeof(double),
                             cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync", gpu());
  cuda_check(cudaEventRecord(events_[0], stream_), "cudaEventRecord", gpu());
  wait(events_[0], ctx, "reference GEMM and its check");
  const double tolerance = reference_tolerance(burn_dtype_name(config_.dtype).c_str());
  int bad = 0;
  std::string first_bad;
  for (int k = 0; k < reference_checks; ++k) {
    if (!reference_element_ok(host_out[2 * reference_checks + k], host_out[k],
                              host_out[reference_checks + k], tolerance)) {
      if (bad++ == 0) {
        first_bad = ", first at row " + std::to_string(rows[k]) + ", column " + std::to_string(cols[k]) + ": " +
                    std::to_string(host_out[2 * reference_checks + k]) + " against the FP64 dot product " +
                    std::to_string(host_out[k]);
      }
    }
  }
  release_reference_check();
  ctx.note(gpu() + ": reference checked at " + std::to_string(reference_checks) +
           " elements against FP64 dot products: " + std::to_string(bad) + " wrong" + first_bad);
  // A reference that is itself wrong makes every later comparison meaningless: count it.
  ctx.counters().wrong_results += static_cast<std::uint64_t>(bad);
}

void GpuBurnWorker::inject_gemm_fault(void* result, WorkerContext& ctx) {
  std::uint64_t number = 0;
  if (!gemm_faults_.take(&number)) return;
  const std::uint64_t index = fault_index(number, gemm_faults_.planned(), std::uint64_t(n_) * n_);
  flip_element<<<1, 1, 0, stream_>>>(result, index, static_cast<unsigned>(info_.c_size), fault_mask(info_.c_size));
  cuda_check(cudaGetLastError(), "flip_element<<<>>>", gpu());
  ctx.counters().injected_faults += 1;
}

// Every memory fault at once, into the pass under way, between its write and its check.
void GpuBurnWorker::inject_memory_faults(WorkerContext& ctx) {
  const std::uint64_t faults = std::min<std::uint64_t>(memory_faults_.take_all(), memory_words_);
  if (faults == 0) return;
  const std::vector<std::uint64_t> indices = fault_indices(faults, memory_words_);
  cuda_check(cudaMalloc(&fault_indices_, faults * sizeof(std::uint64_t)), "cudaMalloc", gpu());
  // From pageable memory: returns once `indices` is staged, so it may go out of scope.
  cuda_check(cudaMemcpyAsync(fault_indices_, indices.data(), faults * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpyAsync", gpu());
  flip_elements<<<blocks_for(faults), threads_per_block, 0, stream_>>>(memory_, fault_indices_, faults, 4,
                                                                       fault_mask(4));
  cuda_check(cudaGetLastError(), "flip_elements<<<>>>", gpu());
  ctx.counters().injected_memory_faults += faults;
}

void GpuBurnWorker::enqueue_batch(int parity, WorkerContext& ctx) {
  for (void* result : results_) {
    gemm(result);
    inject_gemm_fault(result, ctx);
    compare(result);
  }
  cuda_check(cudaMemcpyAsync(host_counters_ + kCounters * parity, device_counters_,
                             kCounters * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_),
             "cudaMemcpyAsync", gpu());
  cuda_check(cudaEventRecord(events_[parity], stream_), "cudaEventRecord", gpu());
}

void GpuBurnWorker::memtest_pass(WorkerContext& ctx, int pattern) {
  memtest_write<<<blocks_for(memory_words_), threads_per_block, 0, stream_>>>(memory_, memory_words_, pattern);
  inject_memory_faults(ctx);
  memtest_check<<<blocks_for(memory_words_), threads_per_block, 0, stream_>>>(memory_, memory_words_, pattern,
                                                                              device_counters_ + 1,
                                                                              device_counters_ + 3);
  cuda_check(cudaGetLastError(), "memtest<<<>>>", gpu());
  cuda_check(cudaMemcpyAsync(host_counters_, device_counters_, kCounters * sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync", gpu());
  cuda_check(cudaEventRecord(events_[0], stream_), "cudaEventRecord", gpu());
  wait(events_[0], ctx, "memory test pattern " + std::to_string(pattern));
  ctx.counters().memory_errors = host_counters_[1];
  if (fault_indices_) cudaFree(fault_indices_);
  fault_indices_ = nullptr;
  name_first_failures(ctx, host_counters_, pattern);
}

// The summary counts; a note names the first wrong result and the first wrong memory word, once
// each (the device kept their lowest indices), so a failure says where, not only how many.
// `pattern` < 0: after a GEMM batch, the memory test's word is not named there.
void GpuBurnWorker::name_first_failures(WorkerContext& ctx, const unsigned long long* counters, int pattern) {
  if (!wrong_named_ && counters[0] > 0 && counters[2] != ~0ull) {
    wrong_named_ = true;
    ctx.note(gpu() + ": first wrong GEMM result element at " + result_element_text(counters[2], n_));
  }
  if (pattern >= 0 && !memory_named_ && counters[1] > 0 && counters[3] != ~0ull) {
    memory_named_ = true;
    ctx.note(gpu() + ": memory test pattern " + std::to_string(pattern) + ": first wrong word " +
             std::to_string(counters[3]) + " (byte " + std::to_string(4 * counters[3]) + " of the tested memory)");
  }
}

void GpuBurnWorker::burn(WorkerContext& ctx) {
  const double batch_flops = 2.0 * double(n_) * n_ * n_ * ring_;
  const std::uint64_t wrong_before = ctx.counters().wrong_results;  // the reference check's
  std::uint64_t batch = 0;
  bool in_flight = false;  // the previous batch, waited for after queueing the next
  double next_memtest = ctx.elapsed_s() + config_.memtest_every_s;
  int next_pattern = 0;
  auto complete = [&](std::uint64_t number) {
    wait(events_[number % 2], ctx, "GEMM batch " + std::to_string(number));
    const unsigned long long* counters = host_counters_ + kCounters * (number % 2);
    ctx.counters().wrong_results = wrong_before + counters[0];
    name_first_failures(ctx, counters, -1);
    ctx.counters().add_work(batch_flops);
    ctx.counters().iterations += 1;
  };
  while (!ctx.stop_requested()) {
    if (!ctx.active()) {
      if (in_flight) complete(batch - 1);
      in_flight = false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    // Two batches in flight: the GPU never waits for the host between them.
    enqueue_batch(static_cast<int>(batch % 2), ctx);
    ++batch;
    if (in_flight) complete(batch - 2);
    in_flight = true;
    if (memory_words_ && ctx.elapsed_s() >= next_memtest) {
      complete(batch - 1);
      in_flight = false;
      memtest_pass(ctx, next_pattern);
      next_pattern = (next_pattern + 1) % memtest_pattern_count;
      next_memtest = ctx.elapsed_s() + config_.memtest_every_s;
    }
  }
  if (in_flight) complete(batch - 1);
}

void GpuBurnWorker::release_reference_check() {
  if (check_indices_) cudaFree(check_indices_);
  if (check_device_out_) cudaFree(check_device_out_);
  if (check_host_out_) cudaFreeHost(check_host_out_);
  check_indices_ = nullptr;
  check_device_out_ = nullptr;
  check_host_out_ = nullptr;
}

void GpuBurnWorker::release() {
  release_reference_check();
  if (fault_indices_) cudaFree(fault_indices_);
  fault_indices_ = nullptr;
  if (memory_) cudaFree(memory_);
  for (void* result : results_) {
    if (result) cudaFree(result);
  }
  results_.clear();
  for (void* buffer : {a_, b_, reference_}) {
    if (buffer) cudaFree(buffer);
  }
  a_ = b_ = reference_ = nullptr;
  memory_ = nullptr;
  if (device_counters_) cudaFree(device_counters_);
  if (host_counters_) cudaFreeHost(host_counters_);
  device_counters_ = nullptr;
  host_counters_ = nullptr;
  for (auto& event : events_) {
    if (event) cudaEventDestroy(event);
    event = nullptr;
  }
  if (handle_) cublasDestroy(handle_);
  handle_ = nullptr;
  if (stream_) cudaStreamDestroy(stream_);
  stream_ = nullptr;
  cudaGetLastError();
}

}  // namespace

}  // namespace pipecheck

// The module's two entry points (stress/gpu_burn_loader.cpp resolves them by name).
extern "C" __attribute__((visibility("default"))) int pipecheck_gpu_burn_interface() {
  return pipecheck::gpu_burn_interface_version;
}

extern "C" __attribute__((visibility("default"))) pipecheck::BurnWorker* pipecheck_make_gpu_burn_worker(
    const pipecheck::GpuBurnConfig* config) {
  return new pipecheck::GpuBurnWorker(*config);
}
