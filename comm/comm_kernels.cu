// Data-check kernels of the collectives: inputs written, results counted, in float and bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "comm/comm_data.hpp"
#include "comm/comm_kernels.hpp"

namespace pipecheck {

namespace {

constexpr int kThreads = 256;
constexpr int kMostBlocks = 4096;  // a grid stride covers the rest

__device__ float to_float(float x) { return x; }
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ T from_int(int x);
template <>
__device__ float from_int<float>(int x) { return static_cast<float>(x); }
template <>
__device__ __nv_bfloat16 from_int<__nv_bfloat16>(int x) { return __int2bfloat16_rn(x); }

template <typename T>
__global__ void fill_kernel(T* send, std::uint64_t count, int rank, int modulus) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    send[i] = from_int<T>(comm_input(rank, i, modulus));
  }
}

template <typename T>
__global__ void count_wrong_kernel(const T* recv, Collective collective, CollectiveCounts counts, int rank,
                                   int ranks, unsigned long long* counters) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  unsigned long long first = ~0ull;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < counts.recv_count;
       i += stride) {
    if (!comm_element_wrong(to_float(recv[i]), comm_expected(collective, rank, ranks, counts, i))) continue;
    if (mine++ == 0) first = i;
  }
  if (mine > 0) {
    atomicAdd(&counters[0], mine);
    atomicMin(&counters[1], first);
  }
}

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < 1 ? 1 : (wanted > kMostBlocks ? kMostBlocks : wanted));
}

}  // namespace

void launch_fill_inputs(CommDtype dtype, void* send, std::uint64_t count, int rank, int ranks, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const int modulus = comm_modulus(ranks);
  if (dtype == CommDtype::bf16) {
    fill_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(send), count, rank, modulus);
  } else {
    fill_kernel<<<blocks_for(count), kThreads, 0, s>>>(static_cast<float*>(send), count, rank, modulus);
  }
}

void launch_count_wrong(CommDtype dtype, Collective collective, const void* recv, const CollectiveCounts& counts,
                        int rank, int ranks, unsigned long long* counters, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = blocks_for(counts.recv_count);
  if (dtype == CommDtype::bf16) {
    count_wrong_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const __nv_bfloat16*>(recv), collective, counts,
                                                   rank, ranks, counters);
  } else {
    count_wrong_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float*>(recv), collective, counts, rank,
                                                   ranks, counters);
  }
}

}  // namespace pipecheck
