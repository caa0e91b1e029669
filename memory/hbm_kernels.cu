// HBM stream kernels (BabelStream's ops on double, moved as 16-byte double2) and the calls that
// allocate, launch, time and verify them.
#include <cuda_runtime.h>

#include <vector>

#include "core/cuda_check.hpp"
#include "memory/hbm_kernels.hpp"

namespace pipecheck {

namespace {

// Independent 16-byte accesses each thread keeps in flight before the first use.
constexpr int kUnroll = 4;

__global__ void init_kernel(double* a, double* b, double* c, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    a[i] = hbm_init_a(i);
    b[i] = hbm_init_b(i);
    c[i] = hbm_init_c(i);
  }
}

__device__ double block_sum(double value) {
  __shared__ double warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  value = threadIdx.x < blockDim.x / 32 ? warp_sums[lane] : 0.0;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
}

// Each kernel walks n2 double2 vectors with a grid stride, kUnroll loads issued before use.
__global__ void read_kernel(const double2* __restrict__ a, std::uint64_t n2, double* partials) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  double sum = 0;
  for (std::uint64_t base = blockIdx.x * blockDim.x + threadIdx.x; base < n2; base += kUnroll * stride) {
    double2 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      v[u] = i < n2 ? a[i] : make_double2(0.0, 0.0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += v[u].x + v[u].y;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void write_kernel(double2* __restrict__ c, std::uint64_t n2, double value) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const double2 v = make_double2(value, value);
  for (std::uint64_t base = blockIdx.x * blockDim.x + threadIdx.x; base < n2; base += kUnroll * stride) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < n2) c[i] = v;
    }
  }
}

__global__ void copy_kernel(const double2* __restrict__ a, double2* __restrict__ c, std::uint64_t n2) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = blockIdx.x * blockDim.x + threadIdx.x; base < n2; base += kUnroll * stride) {
    double2 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < n2) v[u] = a[i];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < n2) c[i] = v[u];
    }
  }
}

__global__ void triad_kernel(double2* __restrict__ a, const double2* __restrict__ b,
                             const double2* __restrict__ c, std::uint64_t n2, double scalar) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t base = blockIdx.x * blockDim.x + threadIdx.x; base < n2; base += kUnroll * stride) {
    double2 vb[kUnroll];
    double2 vc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < n2) {
        vb[u] = b[i];
        vc[u] = c[i];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < n2) a[i] = make_double2(vb[u].x + scalar * vc[u].x, vb[u].y + scalar * vc[u].y);
    }
  }
}

// Counts the elements that hbm_element_wrong() (memory/hbm_model.hpp, the rule the host tests
// replay) calls wrong, into counters[0], and keeps the lowest such index in counters[1].
__global__ void mismatch_kernel(const double* x, std::uint64_t n, HbmExpect expect, double fill,
                                unsigned long long* counters) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0;
  unsigned long long first = ~0ull;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!hbm_element_wrong(x[i], expect, i, fill)) continue;
    if (wrong++ == 0) first = i;
  }
  if (wrong > 0) {
    atomicAdd(&counters[0], wrong);
    atomicMin(&counters[1], first);
  }
}

template <typename Kernel>
int blocks_for(Kernel kernel, int threads, int sm_count, std::uint64_t n2, int device) {
  int per_sm = 0;
  PIPECHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), device);
  return hbm_grid_blocks(sm_count, per_sm, n2, threads);
}

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t as_event(void* e) { return static_cast<cudaEvent_t>(e); }

}  // namespace

HbmArrays::HbmArrays(const GpuTarget& gpu, std::uint64_t array_bytes)
    : device_(gpu.index),
      elements_(array_bytes / kHbmVectorBytes * kHbmVectorBytes / kHbmElementBytes),
      sm_count_(gpu.sm_count) {
  PIPECHECK_CUDA(cudaSetDevice(device_), device_);
  const std::uint64_t n2 = elements_ / 2;
  blocks_read_ = blocks_for(read_kernel, kThreads, sm_count_, n2, device_);
  blocks_write_ = blocks_for(write_kernel, kThreads, sm_count_, n2, device_);
  blocks_copy_ = blocks_for(copy_kernel, kThreads, sm_count_, n2, device_);
  blocks_triad_ = blocks_for(triad_kernel, kThreads, sm_count_, n2, device_);
  try {
    const std::size_t bytes = elements_ * sizeof(double);
    PIPECHECK_CUDA(cudaMalloc(&a_, bytes), device_);
    PIPECHECK_CUDA(cudaMalloc(&b_, bytes), device_);
    PIPECHECK_CUDA(cudaMalloc(&c_, bytes), device_);
    PIPECHECK_CUDA(cudaMalloc(&partials_, static_cast<std::size_t>(blocks_read_) * sizeof(double)), device_);
    PIPECHECK_CUDA(cudaMalloc(&mismatches_, 2 * sizeof(unsigned long long)), device_);
    cudaStream_t stream = nullptr;
    PIPECHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), device_);
    stream_ = stream;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    PIPECHECK_CUDA(cudaEventCreate(&start), device_);
    start_ = start;
    PIPECHECK_CUDA(cudaEventCreate(&stop), device_);
    stop_ = stop;
    reset();
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

HbmArrays::~HbmArrays() { release(); }

void HbmArrays::release() {
  // Teardown must not throw: errors here are ignored, the device may already be lost.
  cudaSetDevice(device_);
  if (stop_) cudaEventDestroy(as_event(stop_));
  if (start_) cudaEventDestroy(as_event(start_));
  if (stream_) cudaStreamDestroy(as_stream(stream_));
  for (void* p : {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_),
                  static_cast<void*>(partials_), static_cast<void*>(mismatches_)}) {
    if (p) cudaFree(p);
  }
  a_ = b_ = c_ = partials_ = nullptr;
  mismatches_ = nullptr;
  stream_ = start_ = stop_ = nullptr;
  cudaGetLastError();
}

int HbmArrays::grid_blocks(HbmOp op) const {
  switch (op) {
    case HbmOp::read: return blocks_read_;
    case HbmOp::write: return blocks_write_;
    case HbmOp::copy: return blocks_copy_;
    case HbmOp::triad: return blocks_triad_;
    default: return 0;  // cudaMemcpy: the copy engines, no grid
  }
}

void HbmArrays::reset() {
  PIPECHECK_CUDA(cudaSetDevice(device_), device_);
  init_kernel<<<sm_count_ * 8, kThreads, 0, as_stream(stream_)>>>(a_, b_, c_, elements_);
  PIPECHECK_CUDA(cudaGetLastError(), device_);
  PIPECHECK_CUDA(cudaStreamSynchronize(as_stream(stream_)), device_);
}

void HbmArrays::enqueue(HbmOp op, std::uint64_t pass) {
  const cudaStream_t stream = as_stream(stream_);
  const std::uint64_t n2 = elements_ / 2;
  switch (op) {
    case HbmOp::read:
      read_kernel<<<blocks_read_, kThreads, 0, stream>>>(reinterpret_cast<const double2*>(a_), n2, partials_);
      break;
    case HbmOp::write:
      write_kernel<<<blocks_write_, kThreads, 0, stream>>>(reinterpret_cast<double2*>(c_), n2,
                                                           hbm_fill_value(pass));
      break;
    case HbmOp::copy:
      copy_kernel<<<blocks_copy_, kThreads, 0, stream>>>(reinterpret_cast<const double2*>(a_),
                                                         reinterpret_cast<double2*>(c_), n2);
      break;
    case HbmOp::triad:
      triad_kernel<<<blocks_triad_, kThreads, 0, stream>>>(
          reinterpret_cast<double2*>(a_), reinterpret_cast<const double2*>(b_),
          reinterpret_cast<const double2*>(c_), n2, kHbmTriadScalar);
      break;
    case HbmOp::d2d_memcpy:
      PIPECHECK_CUDA(cudaMemcpyAsync(c_, a_, elements_ * sizeof(double), cudaMemcpyDeviceToDevice, stream),
                     device_);
      break;
  }
  PIPECHECK_CUDA(cudaGetLastError(), device_);
}

float HbmArrays::time_ms(HbmOp op, int passes, std::uint64_t first_pass) {
  PIPECHECK_CUDA(cudaSetDevice(device_), device_);
  PIPECHECK_CUDA(cudaEventRecord(as_event(start_), as_stream(stream_)), device_);
  for (int p = 0; p < passes; ++p) enqueue(op, first_pass + static_cast<std::uint64_t>(p));
  PIPECHECK_CUDA(cudaEventRecord(as_event(stop_), as_stream(stream_)), device_);
  PIPECHECK_CUDA(cudaEventSynchronize(as_event(stop_)), device_);
  float ms = 0;
  PIPECHECK_CUDA(cudaEventElapsedTime(&ms, as_event(start_), as_event(stop_)), device_);
  return ms;
}

HbmCheck HbmArrays::check_array(const double* array, HbmExpect expect, double fill) {
  const cudaStream_t stream = as_stream(stream_);
  const unsigned long long start[2] = {0, ~0ull};
  unsigned long long counters[2] = {0, ~0ull};
  PIPECHECK_CUDA(cudaMemcpyAsync(mismatches_, start, sizeof(start), cudaMemcpyHostToDevice, stream), device_);
  mismatch_kernel<<<sm_count_ * 8, kThreads, 0, stream>>>(array, elements_, expect, fill, mismatches_);
  PIPECHECK_CUDA(cudaGetLastError(), device_);
  PIPECHECK_CUDA(cudaMemcpyAsync(counters, mismatches_, sizeof(counters), cudaMemcpyDeviceToHost, stream), device_);
  PIPECHECK_CUDA(cudaStreamSynchronize(stream), device_);
  HbmCheck check;
  check.mismatches = counters[0];
  if (check.mismatches > 0 && counters[1] < elements_) {
    // Name the first wrong element with the value it holds: 8 bytes, only on failure.
    check.first_index = counters[1];
    PIPECHECK_CUDA(cudaMemcpy(&check.first_value, array + check.first_index, sizeof(double), cudaMemcpyDeviceToHost),
                   device_);
  }
  return check;
}

std::string HbmArrays::verify(HbmOp op, std::uint64_t last_pass) {
  PIPECHECK_CUDA(cudaSetDevice(device_), device_);
  const cudaStream_t stream = as_stream(stream_);
  const double fill = hbm_fill_value(last_pass);
  double read_sum = 0;
  HbmCheck check;
  if (op == HbmOp::read) {
    std::vector<double> partials(static_cast<std::size_t>(blocks_read_));
    PIPECHECK_CUDA(cudaMemcpyAsync(partials.data(), partials_, partials.size() * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream), device_);
    PIPECHECK_CUDA(cudaStreamSynchronize(stream), device_);
    for (double p : partials) read_sum += p;
    // A wrong sum: was it the data (name the element) or the reduction?
    if (read_sum != hbm_expected_read_sum(elements_)) check = check_array(a_, HbmExpect::init_a, fill);
  } else {
    check = check_array(op == HbmOp::triad ? a_ : c_, hbm_expect_of(op), fill);
  }
  return hbm_verify(op, elements_, check, read_sum, fill);
}

}  // namespace pipecheck
