// pipecheck-comm's flags: nccl-tests' short flags rewritten, validation with the flag named.
#include "comm/comm_args.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

ProbeOptions parsed(std::vector<std::string> args, ProbeMode mode = ProbeMode::standard) {
  args = expand_short_flags(args);
  args.insert(args.begin(), "pipecheck-comm");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  int argc = static_cast<int>(argv.size());
  ProbeOptions options = take_probe_flags(argc, argv.data(), comm_own_flags());
  if (options.mode == ProbeMode::standard) options.mode = mode;
  return options;
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_comm_options(parsed(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(CommArgs, ShortFlagsBecomeLongOnes) {
  EXPECT_EQ(expand_short_flags({"-b", "8", "-e128M", "-f", "2", "--benchmark_filter=x", "-n", "50"}),
            (std::vector<std::string>{"--minbytes", "8", "--maxbytes", "128M", "--stepfactor", "2",
                                      "--benchmark_filter=x", "--iters", "50"}));
  EXPECT_EQ(expand_short_flags({"-d", "bf16", "-g", "4", "-w", "1", "-c", "0", "-o", "sum", "-i", "1M", "-T", "60"}),
            (std::vector<std::string>{"--datatype", "bf16", "--ngpus", "4", "--warmup_iters", "1", "--check", "0",
                                      "--op", "sum", "--stepbytes", "1M", "--timeout", "60"}));
  // Unknown letters and lone dashes are left for Google Benchmark to judge.
  EXPECT_EQ(expand_short_flags({"-x", "-", "value"}), (std::vector<std::string>{"-x", "-", "value"}));
}

TEST(CommArgs, DefaultsFollowTheModeAndNcclTests) {
  const CommOptions standard = parse_comm_options(parsed({}));
  EXPECT_EQ(standard.sweep.max_bytes, 1ULL << 30);
  EXPECT_FALSE(standard.sweep_given);
  EXPECT_EQ(standard.iters, 20);
  EXPECT_EQ(standard.warmup_iters, 5);
  EXPECT_TRUE(standard.check);
  EXPECT_EQ(standard.timeout_seconds, 300);
  EXPECT_EQ(standard.collectives.size(), 4u);
  EXPECT_EQ(standard.dtypes, (std::vector<CommDtype>{CommDtype::float32, CommDtype::bf16}));
  EXPECT_EQ(parse_comm_options(parsed({"--pipecheck_quick"})).sweep.max_bytes, 128ULL << 20);
}

TEST(CommArgs, SweepAndCountsFromFlags) {
  const CommOptions options =
      parse_comm_options(parsed({"-b", "1K", "-e", "1G", "-f", "4", "-n", "100", "-w", "2", "-c", "0", "-T", "0"}));
  EXPECT_EQ(options.sweep.min_bytes, 1024u);
  EXPECT_EQ(options.sweep.max_bytes, 1ULL << 30);
  EXPECT_EQ(options.sweep.step_factor, 4u);
  EXPECT_TRUE(options.sweep_given);
  EXPECT_EQ(options.iters, 100);
  EXPECT_EQ(options.warmup_iters, 2);
  EXPECT_FALSE(options.check);
  EXPECT_EQ(options.timeout_seconds, 0);  // wait forever, as nccl-tests' default
  EXPECT_EQ(parse_comm_options(parsed({"--timeout=45"})).timeout_seconds, 45);
  // -i alone adds a fixed step, as in nccl-tests.
  const CommOptions stepped = parse_comm_options(parsed({"-b", "1M", "-e", "4M", "-i", "1M"}));
  EXPECT_EQ(stepped.sweep.step_factor, 0u);
  EXPECT_EQ(stepped.sweep.step_bytes, 1ULL << 20);
}

TEST(CommArgs, CollectivesAndDtypesInTableOrderOnce) {
  const CommOptions options =
      parse_comm_options(parsed({"--collectives", "broadcast,all_reduce", "--collectives=broadcast", "-d", "bfloat16"}));
  EXPECT_EQ(options.collectives, (std::vector<Collective>{Collective::all_reduce, Collective::broadcast}));
  EXPECT_EQ(options.dtypes, (std::vector<CommDtype>{CommDtype::bf16}));
  EXPECT_EQ(parse_comm_options(parsed({"-d", "all"})).dtypes.size(), 2u);
  EXPECT_EQ(parse_comm_options(parsed({"-g", "4"})).ngpus, std::optional<int>(4));
}

TEST(CommArgs, BadValuesNameTheFlag) {
  EXPECT_NE(usage_error({"-e", "8X"}).find("--maxbytes '8X'"), std::string::npos);
  EXPECT_NE(usage_error({"-b", "1G", "-e", "1M"}).find("--minbytes"), std::string::npos);
  EXPECT_NE(usage_error({"-f", "1"}).find("--stepfactor"), std::string::npos);
  EXPECT_NE(usage_error({"-n", "0"}).find("--iters=0: expected a whole number from 1 to 100000"), std::string::npos);
  EXPECT_NE(usage_error({"-w", "-1"}).find("--warmup_iters"), std::string::npos);
  // --help says 0|1; 7 was taken as "check".
  EXPECT_NE(usage_error({"-c", "7"}).find("--check=7: expected a whole number from 0 to 1"), std::string::npos)
      << usage_error({"-c", "7"});
  EXPECT_NE(usage_error({"-T", "soon"}).find("--timeout=soon: expected a whole number from 0 to 86400"),
            std::string::npos);
  EXPECT_NE(usage_error({"-d", "half"}).find("--datatype 'half': unknown (known: float, bf16, all)"), std::string::npos);
  EXPECT_NE(usage_error({"--collectives", "alltoall"}).find("--collectives 'alltoall'"), std::string::npos);
  EXPECT_NE(usage_error({"--collectives", "all_reduce,"}).find("an empty item"), std::string::npos);
  EXPECT_NE(usage_error({"-o", "max"}).find("only sum"), std::string::npos);
  EXPECT_NE(usage_error({"-g", "2", "--gpus", "0,1"}).find("give one of them"), std::string::npos);
  EXPECT_EQ(usage_error({"-o", "sum"}), "");
}

}  // namespace
}  // namespace pipecheck
