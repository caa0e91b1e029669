// cuBLASLt matmul per dtype: descriptors in the TN layout (the fast path every dtype accepts;
// fp8 and int8 require it), heuristic algorithms timed one by one, input rotation, sampling.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/cuda_check.hpp"
#include "compute/gemm_runner.hpp"

namespace pipecheck {

namespace {

// cuBLAS's advice for Hopper: 32 MiB of workspace lets every algorithm run.
constexpr std::size_t kWorkspaceBytes = 32ULL << 20;

__device__ std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1): random mantissas keep the tensor cores' power, and speed, honest.
__device__ float uniform(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(static_cast<std::int64_t>(mix64(seed + i * 0x9e3779b97f4a7c15ULL) >> 40) -
                            (1LL << 23)) / static_cast<float>(1 << 23);
}

template <typename T>
__device__ T convert(float value) {
  return static_cast<T>(value);
}
template <>
__device__ __half convert<__half>(float value) { return __float2half_rn(value); }
template <>
__device__ __nv_bfloat16 convert<__nv_bfloat16>(float value) { return __float2bfloat16_rn(value); }
template <>
__device__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float value) { return __nv_fp8_e4m3(value); }
template <>
__device__ std::int8_t convert<std::int8_t>(float value) {
  return static_cast<std::int8_t>(__float2int_rn(value * 127.0f));
}
template <>
__device__ double convert<double>(float value) { return static_cast<double>(value); }

template <typename T>
__global__ void fill_kernel(T* data, std::uint64_t count, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = convert<T>(uniform(seed, i));
  }
}

struct Types {
  cudaDataType_t ab;
  cudaDataType_t cd;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

Types types_of(GemmDtype dtype) {
  switch (dtype) {
    case GemmDtype::fp64: return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case GemmDtype::fp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case GemmDtype::tf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F};
    case GemmDtype::fp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case GemmDtype::bf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case GemmDtype::fp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case GemmDtype::int8: return {CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I};
  }
  return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
}

void fill(GemmDtype dtype, void* data, std::uint64_t count, std::uint64_t seed, int sm_count,
          cudaStream_t stream) {
  const int blocks = sm_count * 8;
  switch (dtype) {
    case GemmDtype::fp64: fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<double*>(data), count, seed); break;
    case GemmDtype::fp32:
    case GemmDtype::tf32: fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<float*>(data), count, seed); break;
    case GemmDtype::fp16: fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<__half*>(data), count, seed); break;
    case GemmDtype::bf16:
      fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
      break;
    case GemmDtype::fp8:
      fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed);
      break;
    case GemmDtype::int8: fill_kernel<<<blocks, 256, 0, stream>>>(static_cast<std::int8_t*>(data), count, seed); break;
  }
}

// fp8's per-tensor scales, not 1 so that a runner ignoring them fails the check.
constexpr float kFp8ScaleA = 0.5f;
constexpr float kFp8ScaleB = 0.25f;

}  // namespace

struct GemmRunner::State {
  int device = -1;
  GemmDtype dtype = GemmDtype::bf16;
  GemmShape shape;
  int sets = 1;
  int next_set = 0;
  Types types{};
  std::size_t a_elements = 0;  // per set
  std::size_t b_elements = 0;
  std::size_t a_stride = 0;    // bytes from one set's A to the next: padded to 256 (gemm_shapes)
  std::size_t b_stride = 0;
  void* a = nullptr;  // sets x a_stride
  void* b = nullptr;
  void* d = nullptr;
  void* workspace = nullptr;
  float* scales = nullptr;  // fp8: {scale_a, scale_b} on the device
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a_layout = nullptr;
  cublasLtMatrixLayout_t b_layout = nullptr;
  cublasLtMatrixLayout_t d_layout = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool has_algo = false;
  double alpha_f64 = 1.0, beta_f64 = 0.0;
  float alpha_f32 = 1.0f, beta_f32 = 0.0f;
  std::int32_t alpha_i32 = 1, beta_i32 = 0;

  const void* alpha() const {
    return types.scale == CUDA_R_64F ? static_cast<const void*>(&alpha_f64)
           : types.scale == CUDA_R_32I ? static_cast<const void*>(&alpha_i32)
                                       : static_cast<const void*>(&alpha_f32);
  }
  const void* beta() const {
    return types.scale == CUDA_R_64F ? static_cast<const void*>(&beta_f64)
           : types.scale == CUDA_R_32I ? static_cast<const void*>(&beta_i32)
                                       : static_cast<const void*>(&beta_f32);
  }
  std::size_t in_bytes() const { return static_cast<std::size_t>(input_element_bytes(dtype)); }
  const void* a_set(int set) const { return static_cast<const char*>(a) + static_cast<std::size_t>(set) * a_stride; }
  const void* b_set(int set) const { return static_cast<const char*>(b) + static_cast<std::size_t>(set) * b_stride; }

  // D = alpha * op(A) * B with beta 0: C is D, never read.
  cublasStatus_t matmul(const cublasLtMatmulAlgo_t* with, int set) {
    return cublasLtMatmul(handle, desc, alpha(), a_set(set), a_layout, b_set(set), b_layout, beta(), d,
                          d_layout, d, d_layout, with, workspace, kWorkspaceBytes, stream);
  }

  ~State() {
    // Teardown never throws; errors are ignored (the device may be lost already).
    cudaSetDevice(device);
    if (d_layout) cublasLtMatrixLayoutDestroy(d_layout);
    if (b_layout) cublasLtMatrixLayoutDestroy(b_layout);
    if (a_layout) cublasLtMatrixLayoutDestroy(a_layout);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
    if (stop) cudaEventDestroy(stop);
    if (start) cudaEventDestroy(start);
    if (stream) cudaStreamDestroy(stream);
    for (void* p : {a, b, d, workspace, static_cast<void*>(scales)}) {
      if (p) cudaFree(p);
    }
    cudaGetLastError();
  }
};

GemmRunner::GemmRunner(const GpuTarget& gpu, GemmDtype dtype, GemmShape shape, int sets)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.device = gpu.index;
  s.dtype = dtype;
  s.shape = shape;
  s.sets = std::max(sets, 1);
  s.types = types_of(dtype);
  const int dev = s.device;
  const auto m = static_cast<std::uint64_t>(shape.m);
  const auto n = static_cast<std::uint64_t>(shape.n);
  const auto k = static_cast<std::uint64_t>(shape.k);
  s.a_elements = m * k;
  s.b_elements = k * n;
  s.a_stride = padded_operand_bytes(s.a_elements, input_element_bytes(dtype));
  s.b_stride = padded_operand_bytes(s.b_elements, input_element_bytes(dtype));
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  PIPECHECK_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), dev);
  PIPECHECK_CUDA(cudaEventCreate(&s.start), dev);
  PIPECHECK_CUDA(cudaEventCreate(&s.stop), dev);
  PIPECHECK_CUDA(cudaMalloc(&s.a, s.a_stride * s.sets), dev);
  PIPECHECK_CUDA(cudaMalloc(&s.b, s.b_stride * s.sets), dev);
  PIPECHECK_CUDA(cudaMalloc(&s.d, m * n * static_cast<std::size_t>(output_element_bytes(dtype))), dev);
  PIPECHECK_CUDA(cudaMalloc(&s.workspace, kWorkspaceBytes), dev);
  // Every set different, so rotation never reads what the previous call left in L2.
  for (int set = 0; set < s.sets; ++set) {
    fill(dtype, const_cast<void*>(s.a_set(set)), s.a_elements, 0x1000 + 2 * set, gpu.sm_count, s.stream);
    PIPECHECK_CUDA(cudaGetLastError(), dev);
    fill(dtype, const_cast<void*>(s.b_set(set)), s.b_elements, 0x1001 + 2 * set, gpu.sm_count, s.stream);
    PIPECHECK_CUDA(cudaGetLastError(), dev);
  }

  PIPECHECK_CUBLAS(cublasLtCreate(&s.handle), dev);
  PIPECHECK_CUBLAS(cublasLtMatmulDescCreate(&s.desc, s.types.compute, s.types.scale), dev);
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t keep = CUBLAS_OP_N;
  PIPECHECK_CUBLAS(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                                  sizeof(transpose)), dev);
  PIPECHECK_CUBLAS(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof(keep)),
                   dev);
  if (dtype == GemmDtype::fp8) {
    const float host_scales[2] = {kFp8ScaleA, kFp8ScaleB};
    PIPECHECK_CUDA(cudaMalloc(&s.scales, sizeof(host_scales)), dev);
    PIPECHECK_CUDA(cudaMemcpyAsync(s.scales, host_scales, sizeof(host_scales), cudaMemcpyHostToDevice, s.stream),
                   dev);
    PIPECHECK_CUDA(cudaStreamSynchronize(s.stream), dev);  // host_scales ends with this block
    const float* scale_a = s.scales;
    const float* scale_b = s.scales + 1;
    PIPECHECK_CUBLAS(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a,
                                                    sizeof(scale_a)), dev);
    PIPECHECK_CUBLAS(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b,
                                                    sizeof(scale_b)), dev);
  }
  // TN: A is stored k x m (column-major, ld k) and transposed; B is k x n; D is m x n.
  PIPECHECK_CUBLAS(cublasLtMatrixLayoutCreate(&s.a_layout, s.types.ab, k, m, static_cast<std::int64_t>(k)), dev);
  PIPECHECK_CUBLAS(cublasLtMatrixLayoutCreate(&s.b_layout, s.types.ab, k, n, static_cast<std::int64_t>(k)), dev);
  PIPECHECK_CUBLAS(cublasLtMatrixLayoutCreate(&s.d_layout, s.types.cd, m, n, static_cast<std::int64_t>(m)), dev);
  PIPECHECK_CUDA(cudaStreamSynchronize(s.stream), dev);
}

GemmRunner::~GemmRunner() = default;

const GemmAlgorithm& GemmRunner::select_algorithm(int requested, int trials) {
  State& s = *state_;
  const int dev = s.device;
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  cublasLtMatmulPreference_t preference = nullptr;
  PIPECHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&preference), dev);
  // A plain array: nvcc 13.0's front end crashes destroying a std::vector of this typedef'd
  // anonymous struct (internal error in find_allocated_name_reference).
  constexpr int kMaxAlgorithms = 16;
  cublasLtMatmulHeuristicResult_t results[kMaxAlgorithms] = {};
  const int wanted = std::clamp(requested, 1, kMaxAlgorithms);
  int returned = 0;
  const std::uint64_t workspace = kWorkspaceBytes;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  if (status == CUBLAS_STATUS_SUCCESS) {
    status = cublasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.a_layout, s.b_layout, s.d_layout, s.d_layout,
                                            preference, wanted, results, &returned);
  }
  cublasLtMatmulPreferenceDestroy(preference);
  PIPECHECK_CUBLAS(status, dev);
  if (returned == 0) {
    throw CudaError(std::string("cublasLtMatmulAlgoGetHeuristic on GPU ") + std::to_string(dev) +
                    ": no algorithm for " + dtype_name(s.dtype) + " " + shape_text(s.shape));
  }
  double best_seconds = 0;
  int best = -1;
  std::string last_failure;
  for (int i = 0; i < returned; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    const cublasLtMatmulAlgo_t* algo = &results[i].algo;
    // An algorithm the heuristic offers may still refuse to run: try the next one.
    if (const cublasStatus_t rc = s.matmul(algo, 0); rc != CUBLAS_STATUS_SUCCESS) {
      last_failure = cublasGetStatusString(rc);
      continue;
    }
    PIPECHECK_CUDA(cudaEventRecord(s.start, s.stream), dev);
    bool ran = true;
    for (int t = 0; t < trials && ran; ++t) ran = s.matmul(algo, (t + 1) % s.sets) == CUBLAS_STATUS_SUCCESS;
    PIPECHECK_CUDA(cudaEventRecord(s.stop, s.stream), dev);
    PIPECHECK_CUDA(cudaEventSynchronize(s.stop), dev);
    float ms = 0;
    PIPECHECK_CUDA(cudaEventElapsedTime(&ms, s.start, s.stop), dev);
    const double seconds = ms / 1e3 / std::max(trials, 1);
    if (ran && (best < 0 || seconds < best_seconds)) {
      best = i;
      best_seconds = seconds;
    }
  }
  if (best < 0) {
    throw CudaError(std::string("cublasLtMatmul on GPU ") + std::to_string(dev) + ": none of " +
                    std::to_string(returned) + " heuristic algorithms ran for " + dtype_name(s.dtype) + " " +
                    shape_text(s.shape) + (last_failure.empty() ? "" : ": " + last_failure));
  }
  s.algo = results[best].algo;
  s.has_algo = true;
  auto config = [&](cublasLtMatmulAlgoConfigAttributes_t attribute) {
    std::int32_t value = -1;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&s.algo, attribute, &value, sizeof(value), &written) !=
        CUBLAS_STATUS_SUCCESS) {
      return std::string("?");
    }
    return std::to_string(value);
  };
  algorithm_.text = "id " + config(CUBLASLT_ALGO_CONFIG_ID) + " tile " + config(CUBLASLT_ALGO_CONFIG_TILE_ID) +
                    " stages " + config(CUBLASLT_ALGO_CONFIG_STAGES_ID) + " splitk " +
                    config(CUBLASLT_ALGO_CONFIG_SPLITK_NUM) + " (heuristic " + std::to_string(best + 1) +
                    " of " + std::to_string(returned) + ")";
  algorithm_.seconds_per_call = best_seconds;
  algorithm_.candidates = returned;
  return algorithm_;
}

float GemmRunner::time_calls_ms(int calls) {
  State& s = *state_;
  const int dev = s.device;
  if (!s.has_algo) throw CudaError("GemmRunner: time_calls_ms before select_algorithm");
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  PIPECHECK_CUDA(cudaEventRecord(s.start, s.stream), dev);
  for (int c = 0; c < calls; ++c) {
    PIPECHECK_CUBLAS(s.matmul(&s.algo, s.next_set), dev);
    s.next_set = (s.next_set + 1) % s.sets;
  }
  PIPECHECK_CUDA(cudaEventRecord(s.stop, s.stream), dev);
  PIPECHECK_CUDA(cudaEventSynchronize(s.stop), dev);
  float ms = 0;
  PIPECHECK_CUDA(cudaEventElapsedTime(&ms, s.start, s.stop), dev);
  return ms;
}

GemmSample GemmRunner::sample(int rows, int cols) {
  State& s = *state_;
  const int dev = s.device;
  if (!s.has_algo) throw CudaError("GemmRunner: sample before select_algorithm");
  PIPECHECK_CUDA(cudaSetDevice(dev), dev);
  const std::size_t out_bytes = static_cast<std::size_t>(output_element_bytes(s.dtype));
  const auto m = static_cast<std::size_t>(s.shape.m);
  const auto n = static_cast<std::size_t>(s.shape.n);
  const auto k = static_cast<std::size_t>(s.shape.k);
  // Poison, so an element the matmul did not write cannot pass: all-ones bits are NaN in every
  // float format; int32 gets kInt8Poison, which no allowed K can sum to (see kInt8MaxExactK).
  const int poison_byte = s.dtype == GemmDtype::int8 ? (kInt8Poison & 0xff) : 0xff;
  PIPECHECK_CUDA(cudaMemsetAsync(s.d, poison_byte, m * n * out_bytes, s.stream), dev);
  PIPECHECK_CUBLAS(s.matmul(&s.algo, 0), dev);
  PIPECHECK_CUDA(cudaStreamSynchronize(s.stream), dev);

  GemmSample sample;
  sample.dtype = s.dtype;
  sample.shape = s.shape;
  sample.rows = sample_indices(s.shape.m, rows, 0x5eed);
  sample.cols = sample_indices(s.shape.n, cols, 0xc01);
  sample.scale = s.dtype == GemmDtype::fp8 ? static_cast<double>(kFp8ScaleA) * kFp8ScaleB : 1.0;
  const std::size_t in_bytes = s.in_bytes();
  sample.a_rows.resize(sample.rows.size() * k * in_bytes);
  sample.b_cols.resize(sample.cols.size() * k * in_bytes);
  sample.d_values.resize(sample.rows.size() * sample.cols.size() * out_bytes);
  for (std::size_t r = 0; r < sample.rows.size(); ++r) {
    const auto row = static_cast<std::size_t>(sample.rows[r]);
    PIPECHECK_CUDA(cudaMemcpy(sample.a_rows.data() + r * k * in_bytes,
                              static_cast<const char*>(s.a_set(0)) + row * k * in_bytes, k * in_bytes,
                              cudaMemcpyDeviceToHost), dev);
  }
  std::vector<unsigned char> column(m * out_bytes);
  for (std::size_t c = 0; c < sample.cols.size(); ++c) {
    const auto col = static_cast<std::size_t>(sample.cols[c]);
    PIPECHECK_CUDA(cudaMemcpy(sample.b_cols.data() + c * k * in_bytes,
                              static_cast<const char*>(s.b_set(0)) + col * k * in_bytes, k * in_bytes,
                              cudaMemcpyDeviceToHost), dev);
    PIPECHECK_CUDA(cudaMemcpy(column.data(), static_cast<const char*>(s.d) + col * m * out_bytes, m * out_bytes,
                              cudaMemcpyDeviceToHost), dev);
    for (std::size_t r = 0; r < sample.rows.size(); ++r) {
      const auto row = static_cast<std::size_t>(sample.rows[r]);
      std::copy_n(column.data() + row * out_bytes, out_bytes,
                  sample.d_values.data() + (c * sample.rows.size() + r) * out_bytes);
    }
  }
  return sample;
}

}  // namespace pipecheck
