// Host<->device copy kernels and calls: the spin kernel that holds a stream, the SM copy kernel
// over mapped pinned memory, the pattern fill and the checksum kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "pcie/pcie_copies.hpp"

namespace pipecheck {

namespace {

constexpr std::uint64_t kHostSeed = 0x686f7374;    // "host"
constexpr std::uint64_t kDeviceSeed = 0x64657631;  // "dev1"
constexpr int kThreads = 256;
// A spin kernel gives up after a second, so a host that never releases it (an exception between
// enqueue and release) cannot hang the GPU. Measured on %globaltimer, nanoseconds of one clock
// for the whole GPU: clock64() counts one SM's cycles at whatever clock it runs, and a kernel
// preempted by time-slicing may resume on another SM whose counter differs, so a cycle
// deadline could fire at once or far too late.
constexpr unsigned long long kSpinTimeoutNs = 1'000'000'000ULL;

// Pinned memory every GPU maps: [0] the release flag, [1] set by a spin kernel that timed out.
volatile int* hold_flags() {
  static volatile int* flags = [] {
    void* memory = nullptr;
    if (cudaHostAlloc(&memory, 2 * sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped) != cudaSuccess) {
      cudaGetLastError();
      return static_cast<volatile int*>(nullptr);
    }
    auto* flags = static_cast<volatile int*>(memory);
    flags[0] = 0;
    flags[1] = 0;
    return flags;
  }();
  if (flags == nullptr) throw CudaError("cudaHostAlloc of the spin kernel's flag failed");
  return flags;
}

__device__ unsigned long long globaltimer_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void spin_kernel(volatile int* flags, unsigned long long timeout_ns) {
  const unsigned long long start = globaltimer_ns();
  while (flags[0] == 0) {
    if (globaltimer_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
  }
}

// Copies 16-byte words with the SMs; one side is mapped host memory, so each load or store
// crosses PCIe as the copy engines' traffic does.
__global__ void sm_copy_kernel(const uint4* __restrict__ source, uint4* __restrict__ target, std::uint64_t words) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  constexpr int kUnroll = 4;
  for (std::uint64_t base = blockIdx.x * blockDim.x + threadIdx.x; base < words; base += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < words) v[u] = source[i];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t i = base + u * stride;
      if (i < words) target[i] = v[u];
    }
  }
}

__global__ void pattern_kernel(std::uint64_t* words, std::uint64_t count, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    words[i] = pattern_word(seed, i);
  }
}

__global__ void checksum_kernel(const std::uint64_t* words, std::uint64_t count, unsigned long long* sum) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    local += checksum_term(words[i], i);
  }
  atomicAdd(sum, local);  // wrapping sum: the order of additions does not matter
}

cudaStream_t stream_of(void* s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t event_of(void* e) { return static_cast<cudaEvent_t>(e); }

// The checksum the pattern has over `count` words, computed once per size (1 GiB takes a
// fraction of a second on the host).
std::uint64_t expected_checksum(std::uint64_t seed, std::uint64_t count) {
  static std::mutex mutex;
  static std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(seed, count);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  return cache[key] = pattern_checksum(seed, count);
}

}  // namespace

PcieCopier::PcieCopier(const GpuTarget& gpu, std::uint64_t capacity, bool pageable)
    : device_(gpu.index), capacity_(capacity / 16 * 16), pageable_(pageable), sm_count_(gpu.sm_count) {
  const int dev = device_;
  try {
    PIPECHECK_CUDA(cudaSetDevice(dev), dev);
    hold_flags();
    for (void*& s : streams_) {
      cudaStream_t stream = nullptr;
      PIPECHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), dev);
      s = stream;
    }
    for (void** e : {&start_, &stop_, &joined_}) {
      cudaEvent_t event = nullptr;
      PIPECHECK_CUDA(cudaEventCreate(&event), dev);
      *e = event;
    }
    PIPECHECK_CUDA(cudaMalloc(&device_source_, capacity_), dev);
    PIPECHECK_CUDA(cudaMalloc(&device_target_, capacity_), dev);
    PIPECHECK_CUDA(cudaMalloc(&device_sum_, sizeof(unsigned long long)), dev);
    if (pageable_) {
      host_source_ = static_cast<unsigned char*>(std::malloc(capacity_));
      host_target_ = static_cast<unsigned char*>(std::malloc(capacity_));
      if (!host_source_ || !host_target_) {
        throw RunError("malloc of " + std::to_string(capacity_) + " bytes of pageable host memory failed");
      }
    } else {
      // Portable: the all-GPUs-at-once case copies from it on other contexts too.
      const unsigned flags = cudaHostAllocPortable | cudaHostAllocMapped;
      PIPECHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_source_), capacity_, flags), dev);
      PIPECHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_target_), capacity_, flags), dev);
    }
    // Where the pages land: pageable ones at this first touch, pinned ones already when
    // cudaHostAlloc pinned them. Both happen under the caller's NUMA binding (memory policy and
    // CPUs), so either way on the node asked for.
    auto* words = reinterpret_cast<std::uint64_t*>(host_source_);
    for (std::uint64_t i = 0; i < capacity_ / 8; ++i) words[i] = pattern_word(kHostSeed, i);
    std::memset(host_target_, 0, capacity_);
    pattern_kernel<<<sm_count_ * 8, kThreads, 0, stream_of(streams_[0])>>>(
        reinterpret_cast<std::uint64_t*>(device_source_), capacity_ / 8, kDeviceSeed);
    PIPECHECK_CUDA(cudaGetLastError(), dev);
    int per_sm = 0;
    PIPECHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sm_copy_kernel, kThreads, 0), dev);
    copy_blocks_ = std::max(1, sm_count_ * per_sm);
    PIPECHECK_CUDA(cudaStreamSynchronize(stream_of(streams_[0])), dev);
  } catch (...) {
    release();
    throw;
  }
}

PcieCopier::~PcieCopier() { release(); }

void PcieCopier::release() {
  cudaSetDevice(device_);
  for (void* s : streams_) {
    if (s) cudaStreamSynchronize(stream_of(s));
  }
  for (void* e : {start_, stop_, joined_}) {
    if (e) cudaEventDestroy(event_of(e));
  }
  for (void*& s : streams_) {
    if (s) cudaStreamDestroy(stream_of(s));
    s = nullptr;
  }
  for (void* p : {static_cast<void*>(device_source_), static_cast<void*>(device_target_),
                  static_cast<void*>(device_sum_)}) {
    if (p) cudaFree(p);
  }
  if (pageable_) {
    std::free(host_source_);
    std::free(host_target_);
  } else {
    if (host_source_) cudaFreeHost(host_source_);
    if (host_target_) cudaFreeHost(host_target_);
  }
  host_source_ = host_target_ = device_source_ = device_target_ = nullptr;
  device_sum_ = nullptr;
  start_ = stop_ = joined_ = nullptr;
  cudaGetLastError();
}

void PcieCopier::clear_targets(const CopyKind& kind, std::uint64_t bytes) {
  const int dev = device_;
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  // On the copies' own stream: a non-blocking stream does not wait for the legacy one.
  const cudaStream_t stream = stream_of(streams_[0]);
  if (kind.direction != CopyDirection::d2h) {
    PIPECHECK_CUDA(cudaMemsetAsync(device_target_, 0, bytes, stream), dev);
    PIPECHECK_CUDA(cudaStreamSynchronize(stream), dev);
  }
  if (kind.direction != CopyDirection::h2d) std::memset(host_target_, 0, bytes);
}

void PcieCopier::release_hold() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_flags()[0] = 1;
}

void PcieCopier::enqueue(const CopyKind& kind, std::uint64_t bytes, int copies, bool hold) {
  const int dev = device_;
  if (bytes > capacity_) throw RunError("copy of " + std::to_string(bytes) + " bytes exceeds the buffers");
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  const cudaStream_t first = stream_of(streams_[0]);
  const cudaStream_t second = stream_of(streams_[1]);
  const bool both = kind.direction == CopyDirection::bidir;
  if (hold && !pageable_) {
    hold_flags()[0] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    spin_kernel<<<1, 1, 0, first>>>(hold_flags(), kSpinTimeoutNs);
    PIPECHECK_CUDA(cudaGetLastError(), dev);
  }
  PIPECHECK_CUDA(cudaEventRecord(event_of(start_), first), dev);
  if (both) PIPECHECK_CUDA(cudaStreamWaitEvent(second, event_of(start_), 0), dev);
  const std::uint64_t words = bytes / 16;
  // copy_blocks_ fills every SM and each block loops over the whole buffer: a second such grid
  // on the other stream would only start as the first one ends. Bidir gives each direction half
  // the SMs so both kernels are resident, and their traffic overlaps, from the start.
  const int blocks = both ? std::max(1, copy_blocks_ / 2) : copy_blocks_;
  auto copy = [&](bool to_device, cudaStream_t stream) {
    const unsigned char* source = to_device ? host_source_ : device_source_;
    unsigned char* target = to_device ? device_target_ : host_target_;
    if (kind.engine == CopyEngine::sm) {
      // Mapped pinned memory: with unified addressing the host pointer is the device pointer.
      sm_copy_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const uint4*>(source),
                                                      reinterpret_cast<uint4*>(target), words);
      PIPECHECK_CUDA(cudaGetLastError(), dev);
    } else {
      PIPECHECK_CUDA(cudaMemcpyAsync(target, source, bytes,
                                     to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream),
                     dev);
    }
  };
  for (int c = 0; c < copies; ++c) {
    if (kind.direction != CopyDirection::d2h) copy(true, first);
    if (kind.direction == CopyDirection::d2h) copy(false, first);
    if (both) copy(false, second);
  }
  if (both) {
    PIPECHECK_CUDA(cudaEventRecord(event_of(joined_), second), dev);
    PIPECHECK_CUDA(cudaStreamWaitEvent(first, event_of(joined_), 0), dev);
  }
  PIPECHECK_CUDA(cudaEventRecord(event_of(stop_), first), dev);
}

float PcieCopier::elapsed_ms() {
  const int dev = device_;
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  PIPECHECK_CUDA(cudaEventSynchronize(event_of(stop_)), dev);
  float ms = 0;
  PIPECHECK_CUDA(cudaEventElapsedTime(&ms, event_of(start_), event_of(stop_)), dev);
  return ms;
}

bool PcieCopier::hold_timed_out() {
  const bool timed_out = hold_flags()[1] != 0;
  hold_flags()[1] = 0;
  return timed_out;
}

float PcieCopier::time_ms(const CopyKind& kind, std::uint64_t bytes, int copies) {
  enqueue(kind, bytes, copies, true);
  release_hold();
  return elapsed_ms();
}

std::string PcieCopier::verify(const CopyKind& kind, std::uint64_t bytes) {
  const int dev = device_;
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  const std::uint64_t words = bytes / 8;
  std::string problems;
  if (kind.direction != CopyDirection::d2h) {
    unsigned long long sum = 0;
    const cudaStream_t stream = stream_of(streams_[0]);
    PIPECHECK_CUDA(cudaMemsetAsync(device_sum_, 0, sizeof(sum), stream), dev);
    checksum_kernel<<<sm_count_ * 4, kThreads, 0, stream>>>(reinterpret_cast<const std::uint64_t*>(device_target_),
                                                            words, device_sum_);
    PIPECHECK_CUDA(cudaGetLastError(), dev);
    PIPECHECK_CUDA(cudaMemcpyAsync(&sum, device_sum_, sizeof(sum), cudaMemcpyDeviceToHost, stream), dev);
    PIPECHECK_CUDA(cudaStreamSynchronize(stream), dev);
    if (sum != expected_checksum(kHostSeed, words)) {
      problems += "h2d: device bytes differ from the host source, " + describe(device_target_differences(words));
    }
  }
  if (kind.direction != CopyDirection::h2d) {
    const auto* target = reinterpret_cast<const std::uint64_t*>(host_target_);
    if (checksum_words(target, words) != expected_checksum(kDeviceSeed, words)) {
      problems += std::string(problems.empty() ? "" : "; ") + "d2h: host bytes differ from the device source, " +
                  describe(pattern_differences(target, words, kDeviceSeed));
    }
  }
  return problems;
}

// Only after a wrong checksum: the device target brought back in chunks and compared word by
// word on the host, to name what differs.
PatternDifference PcieCopier::device_target_differences(std::uint64_t words) {
  constexpr std::uint64_t kChunkWords = 8ull << 20;  // 64 MiB
  std::vector<std::uint64_t> chunk(static_cast<std::size_t>(std::min(words, kChunkWords)));
  PatternDifference total;
  for (std::uint64_t start = 0; start < words; start += kChunkWords) {
    const std::uint64_t count = std::min(kChunkWords, words - start);
    PIPECHECK_CUDA(cudaMemcpy(chunk.data(), device_target_ + 8 * start, count * 8, cudaMemcpyDeviceToHost), device_);
    const PatternDifference part = pattern_differences(chunk.data(), count, kHostSeed, start);
    if (part.count > 0 && total.count == 0) total = part;
    else total.count += part.count;
  }
  return total;
}

}  // namespace pipecheck
