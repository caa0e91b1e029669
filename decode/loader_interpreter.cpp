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

// argv: list crop tensor batch width height resize_side. Reads "set<TAB>path" lines from `list`,
// builds the workload's transform at the train size, then answers each line "N T" on stdin with
// "wall_seconds cpu_seconds samples" and, for each image set met, " set:count:sum:sum_of_squares"
// of its samples' seconds in __getitem__ (load + transform), for at least N samples through
// DataLoader(num_workers=0) over those files, each loaded as ImageFolder loads it (torchvision's
// default_loader: pil_loader), with T torch threads (0: torch's default, as a training process
// runs; a DataLoader worker sets 1). The per-set times let the budget weight each set by the
// dataset's files, as it weights the probe's own cases, whichever images a round happened to draw.
constexpr const char* kScript = R"PY(
import sys, time
listing, crop, tensor, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
width, height, resize_side = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
import torch, torchvision
from torchvision import transforms as T
from torchvision.datasets.folder import default_loader
default_threads = torch.get_num_threads()
with open(listing) as f:
    entries = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
sets, paths = [e[0] for e in entries], [e[1] for e in entries]
timed = []  # (set, seconds) of each sample loaded since the round began
size = (height, width)
if crop == "random-resized":
    steps = [T.RandomResizedCrop(size), T.RandomHorizontalFlip()]
elif crop == "center":
    steps = [T.Resize(resize_side), T.CenterCrop(size)]
else:
    steps = [T.Resize(size)]
if tensor == "float32":
    steps += [T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]
else:
    steps += [T.PILToTensor()]
class Files(torch.utils.data.Dataset):
    """ImageFolder's __getitem__ over the probe's files: load, transform, the class index."""
    def __init__(self, paths, transform):
        self.paths, self.transform = paths, transform
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, index):
        start = time.perf_counter()
        sample = self.transform(default_loader(self.paths[index]))
        timed.append((sets[index], time.perf_counter() - start))
        return sample, 0
loader = torch.utils.data.DataLoader(Files(paths, T.Compose(steps)), batch_size=batch, shuffle=True, num_workers=0)
def batches():
    while True:
        for images, labels in loader:
            if tuple(images.shape[1:]) != (3, height, width):
                raise SystemExit("a batch of shape %s, expected (N, 3, %d, %d)" % (tuple(images.shape), height, width))
            yield images.shape[0]
it = batches()
start, warm = time.perf_counter(), 0
while warm < 2 or time.perf_counter() - start < 1.0:  # a job's steady state: allocator and caches warm
    next(it)
    warm += 1
print("ready python3 %s, torch %s, torchvision %s" % (sys.version.split()[0], torch.__version__, torchvision.__version__), flush=True)
for line in sys.stdin:
    wanted, threads = map(int, line.split())
    torch.set_num_threads(threads or default_threads)
    del timed[:]
    seen, start, cpu = 0, time.perf_counter(), time.thread_time()
    while seen < wanted:
        seen += next(it)
    wall, cpu = time.perf_counter() - start, time.thread_time() - cpu
    by_set = {}
    for name, seconds in timed:
        totals = by_set.setdefault(name, [0, 0.0, 0.0])
        totals[0] += 1
        totals[1] += seconds
        totals[2] += seconds * seconds
    print("%.9f %.9f %d" % (wall, cpu, seen) +
          "".join(" %s:%d:%.9f:%.12f" % (name, t[0], t[1], t[2]) for name, t in sorted(by_set.items())), flush=True)
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

// The " set:count:sum:sum_of_squares" fields after the round's three numbers: every sample of the
// round in exactly one set, no time negative or longer than the round.
bool read_set_times(std::istringstream& in, LoaderInterpreter::Round& round) {
  int counted = 0;
  for (std::string field; in >> field;) {
    const auto a = field.find(':'), b = field.find(':', a + 1), c = field.find(':', b + 1);
    if (a == std::string::npos || a == 0 || b == std::string::npos || c == std::string::npos) return false;
    LoaderInterpreter::SampleTimes times;
    char* end = nullptr;
    times.count = static_cast<int>(std::strtol(field.c_str() + a + 1, &end, 10));
    if (end != field.c_str() + b) return false;
    times.seconds = std::strtod(field.c_str() + b + 1, &end);
    if (end != field.c_str() + c) return false;
    times.squares = std::strtod(field.c_str() + c + 1, &end);
    if (*end != '\0' || times.count <= 0 || times.seconds < 0 || times.seconds > round.seconds || times.squares < 0) return false;
    if (!round.sets.emplace(field.substr(0, a), times).second) return false;
    counted += times.count;
  }
  return counted == round.samples;
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
                                     const std::vector<std::filesystem::path>& files, double timeout_seconds,
                                     const std::vector<std::string>& sets)
    : python_(python), folder_("pipecheck-interpreter-"), timeout_seconds_(timeout_seconds) {
  if (files.empty()) throw RunError("the loader's interpreter: no image files to load");
  if (!sets.empty() && sets.size() != files.size()) throw RunError("the loader's interpreter: a set for every file, or none");
  const std::filesystem::path listing = folder_.path() / "files";
  {
    std::ofstream out(listing);
    for (std::size_t i = 0; i < files.size(); ++i) {
      out << (sets.empty() ? std::string("all") : sets[i]) << "\t" << std::filesystem::absolute(files[i]).string() << "\n";
    }
    if (!out) throw RunError(errno_message("write", listing.string(), errno));
  }
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw RunError(errno_message("pipe", "the loader's interpreter", errno));
  const std::string errors = (folder_.path() / "stderr").string();
  const std::vector<std::string> args = {python, "-c", kScript, listing.string(), crop_mode_name(transform.crop),
                                         tensor_kind_name(transform.tensor), std::to_string(batch),
                                         std::to_string(transform.width), std::to_string(transform.height),
                                         std::to_string(center_resize_side(transform))};
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

LoaderInterpreter::Round LoaderInterpreter::run(int samples, int torch_threads) {
  const std::string ask = std::to_string(samples) + " " + std::to_string(torch_threads) + "\n";
  if (write(to_child_, ask.data(), ask.size()) != static_cast<ssize_t>(ask.size())) {
    throw RunError(python_ + ": the loader's interpreter stopped listening: " + last_line_of(folder_.path() / "stderr"));
  }
  const std::string answer = read_line(timeout_seconds_);
  Round round;
  std::istringstream in(answer);
  const bool read = (in >> round.seconds >> round.cpu_seconds >> round.samples) && round.samples >= samples &&
                    round.seconds > 0 && round.cpu_seconds >= 0 && read_set_times(in, round);
  if (!read) {
    const std::string why = last_line_of(folder_.path() / "stderr");
    throw RunError(python_ + ": the loader's interpreter answered '" + answer + "'" + (why.empty() ? "" : ": " + why));
  }
  return round;
}

}  // namespace pipecheck
