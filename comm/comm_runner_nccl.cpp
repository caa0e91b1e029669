// The collectives through NCCL: communicators, buffers, timed runs between CUDA events, and the
// data check. Waiting polls the streams and each communicator's asynchronous error (as nccl-tests
// does), so a failing peer ends the case with NCCL's message instead of a silent hang.
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <exception>
#include <string>

#include "comm/comm_data.hpp"
#include "comm/comm_kernels.hpp"
#include "comm/comm_runner.hpp"
#include "comm/nccl_check.hpp"
#include "core/cuda_check.hpp"

namespace pipecheck {

std::string comm_not_built_reason() { return ""; }

namespace {

struct GpuSlot {
  int device = -1;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  unsigned long long* wrong = nullptr;  // [0] wrong elements, [1] the lowest wrong index
  // Pinned, so the read-back is truly asynchronous and wait() can still see NCCL's errors
  // (a copy into pageable memory blocks the host until the stream gets there).
  unsigned long long* wrong_host = nullptr;
};

ncclDataType_t nccl_type(CommDtype dtype) { return dtype == CommDtype::bf16 ? ncclBfloat16 : ncclFloat32; }

// ncclGroupStart .. ncclGroupEnd, ended even when a call inside throws (an open group would
// swallow every later NCCL call of this thread).
class NcclGroup {
 public:
  explicit NcclGroup(int device) : device_(device) { PIPECHECK_NCCL(ncclGroupStart(), device_, nullptr); }
  void end() {
    open_ = false;
    PIPECHECK_NCCL(ncclGroupEnd(), device_, nullptr);
  }
  // After a failed call inside the group: NCCL recorded the error (ncclGroupError) and its
  // ncclGroupEnd launches nothing then, only cleans up and balances the group depth.
  ~NcclGroup() {
    if (open_) ncclGroupEnd();
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

 private:
  int device_;
  bool open_ = true;
};

void launch_one(const GpuSlot& gpu, const CommCase& c, std::uint64_t offset) {
  const void* send = static_cast<const char*>(gpu.send) + offset;
  void* recv = static_cast<char*>(gpu.recv) + offset;
  const std::size_t count = c.counts.param_count;
  const ncclDataType_t type = nccl_type(c.dtype);
  switch (c.collective) {
    case Collective::all_reduce:
      PIPECHECK_NCCL(ncclAllReduce(send, recv, count, type, ncclSum, gpu.comm, gpu.stream), gpu.device, gpu.comm);
      break;
    case Collective::all_gather:
      PIPECHECK_NCCL(ncclAllGather(send, recv, count, type, gpu.comm, gpu.stream), gpu.device, gpu.comm);
      break;
    case Collective::reduce_scatter:
      PIPECHECK_NCCL(ncclReduceScatter(send, recv, count, type, ncclSum, gpu.comm, gpu.stream), gpu.device,
                     gpu.comm);
      break;
    case Collective::broadcast:
      PIPECHECK_NCCL(ncclBroadcast(send, recv, count, type, 0, gpu.comm, gpu.stream), gpu.device, gpu.comm);
      break;
  }
}

}  // namespace

struct CommRunner::State {
  std::vector<GpuSlot> gpus;
  int ranks = 0;
  std::uint64_t buffer_bytes = 0;
  int timeout_seconds = 0;  // 0: wait() never gives up
  std::string broken;  // set once a communicator failed: later cases say why they cannot run

  void create_streams_and_buffers();
  void create_communicators(RankGroup& group);
  void release() noexcept;
  void enqueue(const CommCase& c, std::uint64_t offset);
  void wait();
  [[noreturn]] void abort_all(const std::string& why);
  void fail_if_broken() const;
};

void CommRunner::State::create_streams_and_buffers() {
  for (GpuSlot& gpu : gpus) {
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    PIPECHECK_CUDA(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking), gpu.device);
    PIPECHECK_CUDA(cudaEventCreate(&gpu.start), gpu.device);
    PIPECHECK_CUDA(cudaEventCreate(&gpu.stop), gpu.device);
    PIPECHECK_NCCL(ncclMemAlloc(&gpu.send, buffer_bytes), gpu.device, nullptr);
    PIPECHECK_NCCL(ncclMemAlloc(&gpu.recv, buffer_bytes), gpu.device, nullptr);
    PIPECHECK_CUDA(cudaMalloc(&gpu.wrong, 2 * sizeof(unsigned long long)), gpu.device);
    PIPECHECK_CUDA(cudaMallocHost(&gpu.wrong_host, 2 * sizeof(unsigned long long)), gpu.device);
    // Defined contents for the timed runs; the check writes its own inputs. cudaMemset runs on
    // the legacy default stream, which a non-blocking stream does not wait for: wait here.
    PIPECHECK_CUDA(cudaMemset(gpu.send, 0, buffer_bytes), gpu.device);
    PIPECHECK_CUDA(cudaMemset(gpu.recv, 0, buffer_bytes), gpu.device);
    PIPECHECK_CUDA(cudaDeviceSynchronize(), gpu.device);
  }
}

void CommRunner::State::create_communicators(RankGroup& group) {
  if (group.size() == 1) {
    std::vector<ncclComm_t> comms(gpus.size());
    std::vector<int> devices;
    for (const GpuSlot& gpu : gpus) devices.push_back(gpu.device);
    PIPECHECK_NCCL(ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), devices.data()), -1, nullptr);
    for (std::size_t i = 0; i < gpus.size(); ++i) gpus[i].comm = comms[i];
    return;
  }
  // Rank 0 makes the id; every rank gets it, or every rank stops with rank 0's error.
  ncclUniqueId id{};
  std::string error;
  if (group.rank() == 0) {
    try {
      PIPECHECK_NCCL(ncclGetUniqueId(&id), -1, nullptr);
    } catch (const NcclError& e) {
      error = e.what();
    }
  }
  group.broadcast(&id, sizeof id);
  if (const std::string agreed = agree_on_error(group, error); !agreed.empty()) throw NcclError(agreed);
  GpuSlot& gpu = gpus.front();
  PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
  PIPECHECK_NCCL(ncclCommInitRank(&gpu.comm, ranks, id, gpu.rank), gpu.device, nullptr);
}

void CommRunner::State::release() noexcept {
  // Teardown must not throw: the device or a peer may already be gone.
  for (GpuSlot& gpu : gpus) {
    cudaSetDevice(gpu.device);
    if (gpu.comm != nullptr) ncclCommDestroy(gpu.comm);
    if (gpu.send != nullptr) ncclMemFree(gpu.send);
    if (gpu.recv != nullptr) ncclMemFree(gpu.recv);
    if (gpu.wrong != nullptr) cudaFree(gpu.wrong);
    if (gpu.wrong_host != nullptr) cudaFreeHost(gpu.wrong_host);
    if (gpu.start != nullptr) cudaEventDestroy(gpu.start);
    if (gpu.stop != nullptr) cudaEventDestroy(gpu.stop);
    if (gpu.stream != nullptr) cudaStreamDestroy(gpu.stream);
    gpu = GpuSlot{gpu.device, gpu.rank};
  }
  cudaGetLastError();
}

void CommRunner::State::fail_if_broken() const {
  if (!broken.empty()) throw NcclError("communicators aborted after an earlier failure: " + broken);
}

void CommRunner::State::enqueue(const CommCase& c, std::uint64_t offset) {
  try {
    NcclGroup group(gpus.front().device);
    for (const GpuSlot& gpu : gpus) launch_one(gpu, c, offset);
    group.end();
  } catch (const NcclError& e) {
    // Peer ranks have launched their part and would wait for ours forever: aborting breaks
    // their connections, so they fail with an error instead of hanging.
    abort_all(e.what());
  }
}

// The communicators are unusable now: abort them all so no stream waits forever, and remember
// why for the cases that follow.
void CommRunner::State::abort_all(const std::string& why) {
  broken = why;
  for (GpuSlot& gpu : gpus) {
    if (gpu.comm != nullptr) ncclCommAbort(gpu.comm);
    gpu.comm = nullptr;
  }
  throw NcclError(why);
}

void CommRunner::State::wait() {
  std::vector<bool> done(gpus.size(), false);
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t remaining = gpus.size(); remaining > 0;) {
    bool progressed = false;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (done[i]) continue;
      GpuSlot& gpu = gpus[i];
      const cudaError_t state = cudaStreamQuery(gpu.stream);
      if (state == cudaSuccess) {
        done[i] = true;
        --remaining;
        progressed = true;
        continue;
      }
      if (state != cudaErrorNotReady) PIPECHECK_CUDA(state, gpu.device);
      ncclResult_t async = ncclSuccess;
      PIPECHECK_NCCL(ncclCommGetAsyncError(gpu.comm, &async), gpu.device, gpu.comm);
      if (async != ncclSuccess && async != ncclInProgress) {
        std::string message;
        try {
          PIPECHECK_NCCL(async, gpu.device, gpu.comm);
        } catch (const NcclError& e) {
          message = e.what();
        }
        abort_all(message);
      }
    }
    if (!progressed && timeout_seconds > 0 &&
        std::chrono::steady_clock::now() - started > std::chrono::seconds(timeout_seconds)) {
      // A peer that died or hung without NCCL noticing: nccl-tests' -T answer, abort and say so.
      const auto unfinished = std::find(done.begin(), done.end(), false) - done.begin();
      abort_all("GPU " + std::to_string(gpus[static_cast<std::size_t>(unfinished)].device) +
                ": collectives not finished after " + std::to_string(timeout_seconds) +
                " s (--timeout): a peer rank may have died or hung; communicators aborted");
    }
    if (!progressed) sched_yield();  // let NCCL's proxy threads run
  }
}

CommRunner::CommRunner(const std::vector<LocalGpu>& gpus, int ranks, std::uint64_t buffer_bytes,
                       int timeout_seconds, RankGroup& group)
    : state_(std::make_unique<State>()) {
  for (const LocalGpu& gpu : gpus) state_->gpus.push_back({gpu.device, gpu.rank});
  state_->ranks = ranks;
  state_->buffer_bytes = std::max<std::uint64_t>(buffer_bytes, 256);
  state_->timeout_seconds = timeout_seconds;
  if (state_->gpus.empty()) throw RunError("no GPU for this process");
  try {
    // Every rank must know that every rank has its buffers before any enters the id broadcast,
    // or a rank that failed here would meet the others' MPI_Bcast with its own error gather.
    std::string error;
    try {
      state_->create_streams_and_buffers();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (const std::string agreed = agree_on_error(group, error); !agreed.empty()) throw RunError(agreed);
    state_->create_communicators(group);
  } catch (...) {
    state_->release();  // a throwing constructor runs no destructor
    throw;
  }
}

CommRunner::~CommRunner() { state_->release(); }

void CommRunner::warm_up(const CommCase& c, int iterations) {
  state_->fail_if_broken();
  for (int i = 0; i < iterations; ++i) {
    state_->enqueue(c, iteration_offset(c.counts.bytes, state_->buffer_bytes, static_cast<std::uint64_t>(i)));
  }
  state_->wait();
}

double CommRunner::time_iterations(const CommCase& c, int iters) {
  state_->fail_if_broken();
  state_->enqueue(c, 0);  // lines the GPUs up: each start event fires when every rank has arrived
  for (const GpuSlot& gpu : state_->gpus) {
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    PIPECHECK_CUDA(cudaEventRecord(gpu.start, gpu.stream), gpu.device);
  }
  for (int i = 0; i < iters; ++i) {
    state_->enqueue(c, iteration_offset(c.counts.bytes, state_->buffer_bytes, static_cast<std::uint64_t>(i)));
  }
  for (const GpuSlot& gpu : state_->gpus) {
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    PIPECHECK_CUDA(cudaEventRecord(gpu.stop, gpu.stream), gpu.device);
  }
  state_->wait();
  float slowest_ms = 0;
  for (const GpuSlot& gpu : state_->gpus) {
    float ms = 0;
    PIPECHECK_CUDA(cudaEventElapsedTime(&ms, gpu.start, gpu.stop), gpu.device);
    slowest_ms = std::max(slowest_ms, ms);
  }
  return static_cast<double>(slowest_ms) / 1e3 / iters;
}

CommRunner::LocalCheck CommRunner::check(const CommCase& c) {
  state_->fail_if_broken();
  const std::size_t element = static_cast<std::size_t>(comm_dtype_info(c.dtype).bytes);
  for (const GpuSlot& gpu : state_->gpus) {
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    launch_fill_inputs(c.dtype, gpu.send, c.counts.send_count, gpu.rank, state_->ranks, gpu.stream);
    PIPECHECK_CUDA(cudaGetLastError(), gpu.device);
    // All bits set is a NaN in float and bf16: an element the collective never wrote is wrong.
    PIPECHECK_CUDA(cudaMemsetAsync(gpu.recv, 0xff, c.counts.recv_count * element, gpu.stream), gpu.device);
    // The count from 0, the lowest wrong index from ~0.
    PIPECHECK_CUDA(cudaMemsetAsync(gpu.wrong, 0, sizeof(unsigned long long), gpu.stream), gpu.device);
    PIPECHECK_CUDA(cudaMemsetAsync(gpu.wrong + 1, 0xff, sizeof(unsigned long long), gpu.stream), gpu.device);
  }
  state_->enqueue(c, 0);
  for (const GpuSlot& gpu : state_->gpus) {
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    launch_count_wrong(c.dtype, c.collective, gpu.recv, c.counts, gpu.rank, state_->ranks, gpu.wrong, gpu.stream);
    PIPECHECK_CUDA(cudaGetLastError(), gpu.device);
    PIPECHECK_CUDA(cudaMemcpyAsync(gpu.wrong_host, gpu.wrong, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                   gpu.stream),
                   gpu.device);
  }
  state_->wait();
  LocalCheck result;
  for (const GpuSlot& gpu : state_->gpus) {
    result.wrong += gpu.wrong_host[0];
    if (gpu.wrong_host[0] == 0 || !result.first.empty() || gpu.wrong_host[1] >= c.counts.recv_count) continue;
    // Name this GPU's first wrong element with the value it holds: one element read back.
    CommCheck first;
    first.wrong = gpu.wrong_host[0];
    first.first_index = gpu.wrong_host[1];
    unsigned char bytes[4] = {};
    PIPECHECK_CUDA(cudaSetDevice(gpu.device), gpu.device);
    PIPECHECK_CUDA(cudaMemcpy(bytes, static_cast<const unsigned char*>(gpu.recv) + first.first_index * element,
                              element, cudaMemcpyDeviceToHost),
                   gpu.device);
    std::uint32_t word = 0;
    if (c.dtype == CommDtype::bf16) {
      word = static_cast<std::uint32_t>(bytes[0] | (bytes[1] << 8)) << 16;  // bf16 is float's top half
    } else {
      std::memcpy(&word, bytes, 4);
    }
    std::memcpy(&first.first_value, &word, 4);
    result.first = comm_wrong_element_text(first, c.collective, gpu.rank, state_->ranks, c.counts);
  }
  return result;
}

}  // namespace pipecheck
