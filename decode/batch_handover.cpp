// A loader worker process handing batches to the training process through shared memory, as
// torch.utils.data does with the file_descriptor strategy: memfd (tmpfs pages, as /dev/shm),
// ftruncate, mmap, the collate's copy of each sample, the descriptor over SCM_RIGHTS.
#include "decode/batch_handover.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

struct Totals {
  double cpu_seconds = 0;
  long batches = 0;
  long pad = 0;  // a totals message is 24 bytes, a batch message 8: the size tells them apart
};

std::string errno_text(const std::string& call) { return call + ": " + std::strerror(errno); }

std::uint64_t stamp_of(long batch, int sample) { return (static_cast<std::uint64_t>(batch) << 20) | static_cast<std::uint64_t>(sample); }

bool send_fd(int socket, int fd, long index) {
  iovec iov{&index, sizeof index};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(socket, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof index);
}

// One message and the descriptor it carries (-1 where it carries none): the batch messages
// and the worker's totals are read the same way.
ssize_t receive_with_fd(int socket, void* data, std::size_t size, int& fd) {
  iovec iov{data, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t got = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
  fd = -1;
  if (const cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); got >= 0 && cmsg != nullptr && cmsg->cmsg_type == SCM_RIGHTS) {
    std::memcpy(&fd, CMSG_DATA(cmsg), sizeof fd);
  }
  return got;
}

// The worker: one batch per credit the training process grants, until a zero credit.
[[noreturn]] void worker_main(int socket, const HandoverOptions& o, const std::vector<unsigned char>& sample) {
  const std::size_t bytes = o.sample_bytes * static_cast<std::size_t>(o.batch);
  long made = 0;
  for (;;) {
    char credit = 0;
    if (read(socket, &credit, 1) != 1 || credit == 0) break;
    const int fd = memfd_create("pipecheck-batch", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) _exit(3);
    void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) _exit(4);
    auto* base = static_cast<unsigned char*>(map);
    for (int s = 0; s < o.batch; ++s) {  // torch.stack(batch, out=shared): each sample copied in
      unsigned char* slot = base + static_cast<std::size_t>(s) * o.sample_bytes;
      std::memcpy(slot, sample.data(), o.sample_bytes);
      const std::uint64_t stamp = stamp_of(made, s);
      std::memcpy(slot, &stamp, sizeof stamp);
      std::memcpy(slot + o.sample_bytes - sizeof stamp, &stamp, sizeof stamp);
    }
    if (made == o.corrupt_batch) base[o.sample_bytes * static_cast<std::size_t>(o.batch / 2) + 3] ^= 0x40;
    munmap(map, bytes);
    if (!send_fd(socket, fd, made)) _exit(5);
    close(fd);
    ++made;
  }
  timespec cpu{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  const Totals totals{static_cast<double>(cpu.tv_sec) + cpu.tv_nsec / 1e9, made, 0};
  if (write(socket, &totals, sizeof totals) != static_cast<ssize_t>(sizeof totals)) _exit(6);
  _exit(0);
}

}  // namespace

BatchHandover::BatchHandover(const HandoverOptions& options) : options_(options) {
  if (options_.sample_bytes < 16 || options_.batch < 1 || options_.prefetch < 1) {
    throw RunError("batch hand-over: a sample of at least 16 bytes, a batch and a prefetch of at least 1");
  }
  // The sample's tensor exists before the worker starts, as the transformed samples do.
  std::vector<unsigned char> sample(options_.sample_bytes);
  for (std::size_t i = 0; i < sample.size(); ++i) sample[i] = static_cast<unsigned char>(i * 131 + 7);
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) throw RunError(errno_text("socketpair"));
  child_ = fork();
  if (child_ < 0) {
    close(pair[0]);
    close(pair[1]);
    throw RunError(errno_text("fork"));
  }
  if (child_ == 0) {
    close(pair[0]);
    worker_main(pair[1], options_, sample);
  }
  close(pair[1]);
  socket_ = pair[0];
  for (int i = 0; i < options_.prefetch; ++i) {
    const char credit = 1;
    if (write(socket_, &credit, 1) != 1) throw RunError(errno_text("batch hand-over: write"));
  }
}

BatchHandover::~BatchHandover() {
  if (child_ > 0) {
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
  }
  if (socket_ >= 0) close(socket_);
}

std::string BatchHandover::receive() {
  long index = -1;
  int fd = -1;
  const ssize_t got = receive_with_fd(socket_, &index, sizeof index, fd);
  if (got != static_cast<ssize_t>(sizeof index) || fd < 0) {
    const int saved = errno;
    if (fd >= 0) close(fd);
    errno = saved;
    throw RunError(got < 0 ? errno_text("batch hand-over: recvmsg") : "batch hand-over: the worker process stopped");
  }
  const std::size_t bytes = options_.sample_bytes * static_cast<std::size_t>(options_.batch);
  std::string wrong;
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != bytes) {
    wrong = "batch " + std::to_string(received_) + ": the segment holds " + std::to_string(st.st_size) + " bytes, not " +
            std::to_string(bytes);
  } else if (void* map = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0); map == MAP_FAILED) {
    close(fd);
    throw RunError(errno_text("batch hand-over: mmap"));
  } else {
    const auto* base = static_cast<const unsigned char*>(map);
    for (int s = 0; s < options_.batch && wrong.empty(); ++s) {
      const unsigned char* slot = base + static_cast<std::size_t>(s) * options_.sample_bytes;
      std::uint64_t first = 0, last = 0;
      std::memcpy(&first, slot, sizeof first);
      std::memcpy(&last, slot + options_.sample_bytes - sizeof last, sizeof last);
      const std::uint64_t expected = stamp_of(received_, s);
      if (index != received_ || first != expected || last != expected) {
        wrong = "batch " + std::to_string(received_) + " sample " + std::to_string(s) +
                ": not the sample sent there (stamps " + std::to_string(first) + ", " + std::to_string(last) +
                ", expected " + std::to_string(expected) + ")";
      }
    }
    munmap(map, bytes);
  }
  close(fd);
  ++received_;
  const char credit = 1;
  if (write(socket_, &credit, 1) != 1) throw RunError(errno_text("batch hand-over: write"));
  return wrong;
}

BatchHandover::WorkerTotals BatchHandover::stop() {
  const char stop = 0;
  if (write(socket_, &stop, 1) != 1) throw RunError(errno_text("batch hand-over: write"));
  // Batches made ahead are still queued (with their descriptors): drained, then the totals.
  for (;;) {
    Totals totals;
    int fd = -1;
    const ssize_t got = receive_with_fd(socket_, &totals, sizeof totals, fd);
    if (fd >= 0) close(fd);
    if (got == static_cast<ssize_t>(sizeof totals)) {
      waitpid(child_, nullptr, 0);
      child_ = -1;
      return {totals.cpu_seconds, totals.batches};
    }
    if (got <= 0) throw RunError("batch hand-over: the worker process stopped before its totals");
  }
}

}  // namespace pipecheck
