// pipecheck-comm flags: short-flag rewriting and validation.
#include "comm/comm_args.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

const std::map<char, const char*>& short_flags() {
  static const std::map<char, const char*> table = {
      {'b', "minbytes"}, {'e', "maxbytes"}, {'f', "stepfactor"}, {'i', "stepbytes"},
      {'n', "iters"},    {'w', "warmup_iters"}, {'c', "check"},  {'d', "datatype"},
      {'o', "op"},       {'g', "ngpus"},        {'T', "timeout"},
  };
  return table;
}

// "--iters": built with += (GCC 12 warns falsely on "literal" + std::string).
std::string dashed(const std::string& flag) {
  std::string text = "--";
  text += flag;
  return text;
}

// "1,2" -> {"1", "2"}; empty items are an error of the flag.
std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (item.empty()) throw UsageError(dashed(flag) + " '" + text + "': an empty item");
    items.push_back(item);
    start = end + 1;
  }
  return items;
}

long long parse_integer(const std::string& text, const std::string& flag, long long lowest, long long highest) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < lowest || value > highest) {
    throw UsageError(dashed(flag) + " '" + shortened(text) + "': expected a whole number from " +
                     std::to_string(lowest) + " to " + std::to_string(highest));
  }
  return value;
}

// Every value of a list flag given (repeats add up), or "all" for everything.
template <typename T, typename Parse, typename Table>
std::vector<T> parse_choice_list(const ProbeOptions& options, const std::string& flag, Parse parse,
                                 const Table& table) {
  std::vector<T> chosen;
  for (const std::string& value : options.all(flag)) {
    for (const std::string& item : split_list(value, flag)) {
      if (item == "all") {
        for (const auto& row : table) chosen.push_back(static_cast<T>(row.first));
        continue;
      }
      const auto parsed = parse(item);
      if (!parsed) {
        std::string known;
        for (const auto& row : table) {
          if (!known.empty()) known += ", ";
          known += row.second;
        }
        throw UsageError(dashed(flag) + " '" + item + "': unknown (known: " + known + ", all)");
      }
      chosen.push_back(*parsed);
    }
  }
  if (chosen.empty()) {
    for (const auto& row : table) chosen.push_back(static_cast<T>(row.first));
  }
  // Table order, each once: the run order does not depend on how the flags were written.
  std::vector<T> ordered;
  for (const auto& row : table) {
    const T value = static_cast<T>(row.first);
    if (std::find(chosen.begin(), chosen.end(), value) != chosen.end()) ordered.push_back(value);
  }
  return ordered;
}

std::vector<std::pair<Collective, const char*>> collective_table() {
  std::vector<std::pair<Collective, const char*>> table;
  for (const auto& info : collectives()) table.emplace_back(info.collective, info.name);
  return table;
}

std::vector<std::pair<CommDtype, const char*>> dtype_table() {
  std::vector<std::pair<CommDtype, const char*>> table;
  for (const auto& info : comm_dtypes()) table.emplace_back(info.dtype, info.name);
  return table;
}

void read_sweep(const ProbeOptions& options, CommOptions& comm) {
  if (const auto* text = options.last("minbytes")) comm.sweep.min_bytes = parse_message_size(*text, "--minbytes");
  if (const auto* text = options.last("maxbytes")) comm.sweep.max_bytes = parse_message_size(*text, "--maxbytes");
  if (const auto* text = options.last("stepbytes")) {
    comm.sweep.step_bytes = parse_message_size(*text, "--stepbytes");
    comm.sweep.step_factor = 0;  // nccl-tests: -i adds a fixed step unless -f is given
  }
  if (const auto* text = options.last("stepfactor")) {
    comm.sweep.step_factor = static_cast<std::uint64_t>(parse_integer(*text, "stepfactor", 1, 1 << 20));
  }
  comm.sweep_given = options.last("minbytes") || options.last("maxbytes") || options.last("stepbytes") ||
                     options.last("stepfactor");
  sweep_sizes(comm.sweep);  // refuse a bad sweep now, with the flags named
}

}  // namespace

const std::vector<ProbeFlag>& comm_own_flags() {
  const auto size = [](const char* flag) -> FlagCheck {
    return [flag](const std::string& text) {
      parse_message_size(text, flag);  // its own message, naming the flag
      return std::string();
    };
  };
  static const std::vector<ProbeFlag> flags = {
      {"minbytes", "SIZE", "smallest message (-b; 8, 128K, 1G)", size("--minbytes")},
      {"maxbytes", "SIZE", "largest message (-e)", size("--maxbytes")},
      {"stepfactor", "N", "multiply the size by N each step (-f)", whole_number(1, 1 << 20)},
      {"stepbytes", "SIZE", "add SIZE each step (-i)", size("--stepbytes")},
      {"iters", "N", "collectives per timed sample (-n, default 20)", whole_number(1, 100000)},
      {"warmup_iters", "N", "untimed collectives before each size (-w, default 5)", whole_number(0, 100000)},
      {"check", "0|1", "data check after each size (-c, default 1)", whole_number(0, 1)},
      {"timeout", "S", "abort a wait this long for the GPUs (-T, default 300; 0 waits forever)", whole_number(0, 86400)},
      {"datatype", "LIST", "float, bf16 or all (-d)", some_text()},
      {"collectives", "LIST", "all_reduce, all_gather, reduce_scatter, broadcast or all", some_text()},
      {"op", "sum", "reduction (-o; only sum is measured)", some_text()},
      {"ngpus", "N", "the first N GPUs, single process (-g)", whole_number(1, 1024)},
      gpus_flag(),
  };
  return flags;
}

std::vector<std::string> expand_short_flags(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') {
      out.push_back(arg);
      continue;
    }
    const auto it = short_flags().find(arg[1]);
    if (it == short_flags().end()) {
      out.push_back(arg);
      continue;
    }
    out.push_back(dashed(it->second));
    if (arg.size() > 2) out.push_back(arg.substr(2));  // "-b8": the value is attached
  }
  return out;
}

CommOptions parse_comm_options(const ProbeOptions& options) {
  CommOptions comm;
  comm.sweep = default_sweep(options.mode);
  read_sweep(options, comm);
  comm.collectives = parse_choice_list<Collective>(options, "collectives", parse_collective, collective_table());
  comm.dtypes = parse_choice_list<CommDtype>(options, "datatype", parse_comm_dtype, dtype_table());
  if (const auto* text = options.last("iters")) comm.iters = static_cast<int>(parse_integer(*text, "iters", 1, 100000));
  if (const auto* text = options.last("warmup_iters")) {
    comm.warmup_iters = static_cast<int>(parse_integer(*text, "warmup_iters", 0, 100000));
  }
  if (const auto* text = options.last("check")) comm.check = parse_integer(*text, "check", 0, 1) > 0;
  if (const auto* text = options.last("timeout")) {
    comm.timeout_seconds = static_cast<int>(parse_integer(*text, "timeout", 0, 86400));
  }
  if (const auto* text = options.last("op")) {
    if (*text != "sum") throw UsageError("--op '" + *text + "': only sum is measured");
  }
  if (const auto* text = options.last("ngpus")) {
    if (options.last("gpus")) throw UsageError("--ngpus and --gpus: give one of them");
    comm.ngpus = static_cast<int>(parse_integer(*text, "ngpus", 1, 1024));
  }
  return comm;
}

}  // namespace pipecheck
