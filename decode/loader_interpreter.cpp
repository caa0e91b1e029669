// The job's Python as a child process on two pipes (decode/loader_interpreter.hpp says why).
#include "decode/loader_interpreter.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/errors.hpp"

namespace pipecheck {

namespace {

// argv: folder crop tensor batch. Writes 2 classes x 16 JPEGs of 16x16 into the folder, builds
// the transform the workload names at a 16x16 train size, then answers each line N on stdin
// with "cpu_seconds samples" for at least N samples through DataLoader(num_workers=0).
constexpr const char* kScript = R"PY(
import os, sys, time
folder, crop, tensor, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
import torch, torchvision
from PIL import Image
from torchvision import datasets, transforms as T
torch.set_num_threads(1)
for c in range(2):
    os.makedirs(os.path.join(folder, "c%d" % c), exist_ok=True)
    for i in range(16):
        Image.new("RGB", (16, 16), (16 * i, 100 * c, 90)).save(os.path.join(folder, "c%d" % c, "%d.JPEG" % i), quality=90)
side = 16
if crop == "random-resized":
    steps = [T.RandomResizedCrop(side), T.RandomHorizontalFlip()]
elif crop == "center":
    steps = [T.Resize(side * 8 // 7), T.CenterCrop(side)]
else:
    steps = [T.Resize((side, side))]
if tensor == "float32":
    steps += [T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]
else:
    steps += [T.PILToTensor()]
loader = torch.utils.data.DataLoader(datasets.ImageFolder(folder, T.Compose(steps)), batch_size=batch, shuffle=True, num_workers=0)
def batches():
    while True:
        for images, labels in loader:
            yield images.shape[0]
it = batches()
next(it)
print("ready python3 %s, torch %s, torchvision %s" % (sys.version.split()[0], torch.__version__, torchvision.__version__), flush=True)
for line in sys.stdin:
    wanted, seen = int(line), 0
    start = time.thread_time()
    while seen < wanted:
        seen += next(it)
    print("%.9f %d" % (time.thread_time() - start, seen), flush=True)
)PY";

bool executable_file(const std::string& path) {
  struct stat info{};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (!folder.empty() && executable_file(folder + "/" + name)) return folder + "/" + name;
  }
  return "";
}

// True when `python` finds torch and torchvision without importing them (tens of milliseconds).
bool has_torchvision(const std::string& python) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
    execl(python.c_str(), python.c_str(), "-c",
          "import importlib.util as u, sys; sys.exit(0 if u.find_spec('torch') and u.find_spec('torchvision') else 1)",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string last_line_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::string choose_loader_python(const std::string& wanted) {
  if (wanted == "none" || wanted.empty()) return "";
  if (wanted == "auto") {
    const std::string python = on_path("python3");
    return !python.empty() && has_torchvision(python) ? python : "";
  }
  if (!executable_file(wanted)) throw UsageError("--python " + wanted + ": not an executable file");
  return wanted;
}

LoaderInterpreter::LoaderInterpreter(const std::string& python, const LoaderTransform& transform, int batch,
                                     double timeout_seconds)
    : python_(python), folder_("pipecheck-interpreter-"), timeout_seconds_(timeout_seconds) {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw RunError(errno_message("pipe", "the loader's interpreter", errno));
  const std::string data = (folder_.path() / "images").string(), errors = (folder_.path() / "stderr").string();
  const std::vector<std::string> args = {python, "-c", kScript, data, crop_mode_name(transform.crop),
                                         tensor_kind_name(transform.tensor), std::to_string(batch)};
  std::vector<char*> argv;  // made before fork: the child of a threaded process must not allocate
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  child_ = fork();
  if (child_ < 0) throw RunError(errno_message("fork", python, errno));
  if (child_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int err = open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(down[0], 0);
    dup2(up[1], 1);
    if (err >= 0) dup2(err, 2);
    execv(python.c_str(), argv.data());
    _exit(127);
  }
  close(down[0]);
  close(up[1]);
  to_child_ = down[1];
  from_child_ = up[0];
  const std::string ready = read_line(timeout_seconds_);
  if (ready.rfind("ready ", 0) != 0) {
    const std::string why = last_line_of(errors);
    stop();  // a constructor that throws runs no destructor
    throw RunError(python + ": the loader's interpreter did not start: " + (why.empty() ? "no answer" : why));
  }
  versions_ = ready.substr(6);
}

LoaderInterpreter::~LoaderInterpreter() { stop(); }

void LoaderInterpreter::stop() {
  if (to_child_ >= 0) close(to_child_);  // EOF on its stdin: the script ends
  to_child_ = -1;
  if (child_ > 0) {
    int status = 0;
    for (int i = 0; i < 50 && waitpid(child_, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (waitpid(child_, &status, WNOHANG) == 0) {
      kill(child_, SIGKILL);
      waitpid(child_, &status, 0);
    }
  }
  child_ = -1;
  if (from_child_ >= 0) close(from_child_);
  from_child_ = -1;
}

std::string LoaderInterpreter::read_line(double timeout_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    if (const auto end = pending_.find('\n'); end != std::string::npos) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return "";
    pollfd fd{from_child_, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return "";
    char buffer[512];
    const ssize_t got = read(from_child_, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return "";  // the process closed its stdout: it died
    pending_.append(buffer, static_cast<std::size_t>(got));
  }
}

LoaderInterpreter::Round LoaderInterpreter::run(int samples) {
  const std::string ask = std::to_string(samples) + "\n";
  if (write(to_child_, ask.data(), ask.size()) != static_cast<ssize_t>(ask.size())) {
    throw RunError(python_ + ": the loader's interpreter stopped listening: " + last_line_of(folder_.path() / "stderr"));
  }
  const std::string answer = read_line(timeout_seconds_);
  Round round;
  std::istringstream in(answer);
  if (!(in >> round.cpu_seconds >> round.samples) || round.samples < samples || round.cpu_seconds < 0) {
    const std::string why = last_line_of(folder_.path() / "stderr");
    throw RunError(python_ + ": the loader's interpreter answered '" + answer + "'" + (why.empty() ? "" : ": " + why));
  }
  return round;
}

}  // namespace pipecheck
