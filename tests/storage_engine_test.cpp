// Real reads through the storage probe's engines (io_uring and pread) on files the test
// writes: every byte compared with what was written.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "storage/storage_run.hpp"
#include "storage/storage_scratch.hpp"
#include "storage/storage_workloads.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string bytes(n, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Copies what each read returned to where it belongs, so the whole file can be compared.
class CopyingWorkload : public SequentialWorkload {
 public:
  CopyingWorkload(int fd, std::uint64_t size, std::uint32_t bs, std::string& into)
      : SequentialWorkload(fd, 0, size, bs, 4096, {}), into_(into) {}
  bool complete(const ReadRequest& request, const unsigned char* data, std::int64_t result) override {
    if (request.offset + static_cast<std::uint64_t>(result) > into_.size()) return false;
    std::memcpy(into_.data() + request.offset, data, static_cast<std::size_t>(result));
    return true;
  }

 private:
  std::string& into_;
};

bool uring_usable() { return io_uring_unavailable_reason().empty(); }

PassResult read_once(bool uring, std::unique_ptr<ReadWorkload> workload, EngineSettings settings) {
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(make_reader(uring, settings));
  std::vector<std::unique_ptr<ReadWorkload>> workloads;
  workloads.push_back(std::move(workload));
  return run_pass(readers, workloads);
}

class StorageEngine : public ::testing::TestWithParam<bool> {  // true: io_uring
 protected:
  void SetUp() override {
    if (GetParam() && !uring_usable()) GTEST_SKIP() << "io_uring: " << io_uring_unavailable_reason();
    dir_ = fresh_dir(std::string("engine-") + (GetParam() ? "uring" : "pread"));
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(StorageEngine, DirectReadOfAnOddSizedFileReturnsExactlyItsBytes) {
  const std::string written = random_bytes(3 * 65536 + 1234, 1);  // not a multiple of 4096
  write_file(dir_ / "odd.bin", written);
  const int fd = open((dir_ / "odd.bin").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  std::string read_back(written.size(), '\0');
  const PassResult pass = read_once(GetParam(), std::make_unique<CopyingWorkload>(fd, written.size(), 65536, read_back),
                                    {8, 65536, false, true});
  close(fd);
  EXPECT_EQ(pass.error, "");
  EXPECT_EQ(pass.bytes, written.size());
  EXPECT_EQ(pass.ops, 4u);
  EXPECT_EQ(pass.mismatches, 0u);
  EXPECT_EQ(pass.latencies_ns.size(), 4u);
  EXPECT_TRUE(read_back == written) << "bytes differ from what was written";
}

TEST_P(StorageEngine, DatasetReadsEveryFileWholeWithTheRightChecksum) {
  const std::vector<std::size_t> sizes = {0, 1, 4095, 4096, 5000, (1 << 20) + 3, 70000};
  std::vector<DatasetFile> files;
  std::uint64_t expected_sum = 0;
  std::uint64_t expected_bytes = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const fs::path path = dir_ / fs::path("f").concat(std::to_string(i));  // not "f" + string: GCC 12 -Wrestrict
    const std::string bytes = random_bytes(sizes[i], static_cast<unsigned>(i + 10));
    write_file(path, bytes);
    files.push_back({path.string(), sizes[i]});
    expected_sum += region_checksum(i, 0, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    expected_bytes += sizes[i];
  }
  auto workload = std::make_unique<DatasetWorkload>(files, 65536, 4096, true, ReadCheck{ReadCheck::checksum, 0});
  DatasetWorkload& dataset = *workload;
  // Keep the workload alive past the pass to read its tallies.
  std::vector<std::unique_ptr<Reader>> readers;
  readers.push_back(make_reader(GetParam(), {32, 65536, false, false}));
  std::vector<std::unique_ptr<ReadWorkload>> workloads;
  workloads.push_back(std::move(workload));
  const PassResult pass = run_pass(readers, workloads);
  EXPECT_EQ(pass.error, "");
  EXPECT_EQ(pass.bytes, expected_bytes);
  EXPECT_EQ(dataset.files_read(), sizes.size());
  EXPECT_EQ(dataset.files_unreadable(), 0u);
  EXPECT_EQ(dataset.checksum(), expected_sum);
}

TEST_P(StorageEngine, DatasetCountsAVanishedFileAndGoesOn) {
  write_file(dir_ / "kept", random_bytes(10000, 3));
  std::vector<DatasetFile> files = {{(dir_ / "gone").string(), 5000}, {(dir_ / "kept").string(), 10000}};
  DatasetWorkload dataset(files, 65536, 4096, false, {});
  auto reader = make_reader(GetParam(), {4, 65536, false, false});
  const ReaderResult result = reader->run(dataset);
  EXPECT_EQ(result.bytes, 10000u);
  EXPECT_EQ(dataset.files_unreadable(), 1u);
  EXPECT_NE(dataset.first_open_error().find("gone"), std::string::npos);
}

TEST(StorageWorkloads, NeighbouringSeedsReadDifferentOffsets) {
  // The probe seeds its readers 1, 2, 3, ...: two of them on the same offsets would let the
  // device's cache answer one and inflate IOPS.
  auto offsets = [](std::uint64_t seed) {
    RandomWorkload workload(-1, 1ull << 30, 4096, 64, seed, ReadCheck{});
    std::vector<std::uint64_t> seen;
    for (ReadRequest request; workload.next(request);) seen.push_back(request.offset);
    return seen;
  };
  const auto first = offsets(1), second = offsets(2), third = offsets(3);
  EXPECT_EQ(first.size(), 64u);
  EXPECT_NE(first, second);
  EXPECT_NE(second, third);
  EXPECT_EQ(first, offsets(1));  // and the same seed repeats its offsets
}

// A pass of random reads ends at its deadline when the count would take longer (an HDD), and
// at its count when that comes first (a fast disk).
TEST(StorageWorkloads, RandomPassEndsAtItsDeadlineOrCount) {
  const auto past = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  RandomWorkload expired(-1, 1ull << 30, 4096, 1000, 1, ReadCheck{}, past);
  ReadRequest request;
  EXPECT_FALSE(expired.next(request));
  EXPECT_FALSE(expired.next(request));  // and stays ended
  const auto soon = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  RandomWorkload timed(-1, 1ull << 30, 4096, std::uint64_t{1} << 40, 2, ReadCheck{}, soon);
  std::uint64_t issued = 0;
  while (timed.next(request)) ++issued;
  EXPECT_GE(std::chrono::steady_clock::now(), soon);
  EXPECT_GT(issued, 0u);
  RandomWorkload counted(-1, 1ull << 30, 4096, 5, 3, ReadCheck{}, std::chrono::steady_clock::now() + std::chrono::hours(1));
  issued = 0;
  while (counted.next(request)) ++issued;
  EXPECT_EQ(issued, 5u);
}

TEST(StorageWorkloads, DatasetReadErrorsNameTheFile) {
  DatasetWorkload dataset({{"/data/a.jpg", 10}, {"/data/b.jpg", 20}}, 65536, 4096, false, {});
  ReadRequest request;
  request.tag = 1;
  request.offset = 4096;
  EXPECT_EQ(dataset.where(request), "/data/b.jpg at offset 4096");
  SequentialWorkload single(-1, 0, 4096, 4096, 4096, ReadCheck{});
  EXPECT_EQ(single.where(request), "at offset 4096");
}

TEST_P(StorageEngine, RandomReadsOfTheScratchPatternVerifyAndAWrongSeedFails) {
  auto scratch = ScratchFile::create(dir_.string(), 16 << 20, 99);
  ASSERT_TRUE(fs::is_empty(dir_));
  const int fd = scratch->direct_fd() >= 0 ? scratch->direct_fd() : scratch->buffered_fd();
  const PassResult good = read_once(
      GetParam(), std::make_unique<RandomWorkload>(fd, scratch->size(), 4096, 2000, 5, ReadCheck{ReadCheck::pattern, 99}),
      {16, 4096, false, true});
  EXPECT_EQ(good.error, "");
  EXPECT_EQ(good.ops, 2000u);
  EXPECT_EQ(good.bytes, 2000u * 4096);
  EXPECT_EQ(good.mismatches, 0u);
  EXPECT_EQ(good.latencies_ns.size(), 2000u);
  const PassResult bad = read_once(
      GetParam(), std::make_unique<RandomWorkload>(fd, scratch->size(), 4096, 100, 5, ReadCheck{ReadCheck::pattern, 98}),
      {16, 4096, false, false});
  EXPECT_EQ(bad.mismatches, 100u);
}

// A file holding the scratch pattern with one byte flipped on disk: the pattern check catches
// it and names the file offset. The flip sits in a block header (checked on every read) and, in
// a second file, in a block body of the first read (whose every word is checked).
TEST_P(StorageEngine, OneFlippedByteOnDiskIsCaughtAndItsOffsetNamed) {
  for (const std::uint64_t flipped : {std::uint64_t{5 * 4096 + 3}, std::uint64_t{2 * 4096 + 1000}}) {
    std::string bytes(1 << 20, '\0');
    fill_pattern(reinterpret_cast<unsigned char*>(bytes.data()), 0, bytes.size(), 7);
    bytes[flipped] = static_cast<char>(bytes[flipped] ^ 0x20);
    const fs::path path = dir_ / ("pattern-" + std::to_string(flipped));
    write_file(path, bytes);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const PassResult pass = read_once(
        GetParam(),
        std::make_unique<SequentialWorkload>(fd, 0, bytes.size(), 64 << 10, 4096, ReadCheck{ReadCheck::pattern, 7}),
        {1, 64 << 10, false, false});  // one read in flight: the first completion is the first read
    close(fd);
    EXPECT_EQ(pass.error, "");
    EXPECT_EQ(pass.mismatches, 1u);
    const std::string word = "offset " + std::to_string(flipped / 8 * 8) + ": read 0x";
    EXPECT_EQ(pass.first_mismatch.rfind(word, 0), 0u) << pass.first_mismatch;
  }
}

// The consistency check keeps each 4 KiB piece's sum, so two reads of the same bytes that
// differ in one byte are told apart and the piece is named.
TEST_P(StorageEngine, ConsistencyPiecesNameTheFirstDifferingPiece) {
  const std::string written = random_bytes(256 << 10, 3);
  std::string damaged = written;
  damaged[123'457] = static_cast<char>(damaged[123'457] ^ 1);
  write_file(dir_ / "good", written);
  write_file(dir_ / "bad", damaged);
  std::vector<PieceSum> sums[2];
  int which = 0;
  for (const char* name : {"good", "bad"}) {
    const int fd = open((dir_ / name).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    auto workload = std::make_unique<SequentialWorkload>(fd, 0, written.size(), 64 << 10, 4096,
                                                         ReadCheck{ReadCheck::checksum, 0, true});
    const SequentialWorkload& kept = *workload;
    std::vector<std::unique_ptr<Reader>> readers;
    readers.push_back(make_reader(GetParam(), {4, 64 << 10, false, false}));
    std::vector<std::unique_ptr<ReadWorkload>> workloads;
    workloads.push_back(std::move(workload));
    EXPECT_EQ(run_pass(readers, workloads).error, "");
    sums[which++] = kept.pieces();
    close(fd);
  }
  ASSERT_EQ(sums[0].size(), written.size() / 4096);
  EXPECT_FALSE(first_piece_difference(sums[0], sums[0]));
  const auto difference = first_piece_difference(sums[0], sums[1]);
  ASSERT_TRUE(difference);
  EXPECT_EQ(difference->offset, 123'457u / 4096 * 4096);
  // A piece one pass did not read at all is a difference too.
  std::vector<PieceSum> short_read = sums[0];
  short_read.pop_back();
  ASSERT_TRUE(first_piece_difference(sums[0], short_read));
  EXPECT_EQ(first_piece_difference(sums[0], short_read)->offset, written.size() - 4096);
}

TEST_P(StorageEngine, SeveralReaderThreadsSplitTheWork) {
  auto scratch = ScratchFile::create(dir_.string(), 16 << 20, 5);
  const int fd = scratch->buffered_fd();
  std::vector<std::unique_ptr<Reader>> readers;
  std::vector<std::unique_ptr<ReadWorkload>> workloads;
  for (int i = 0; i < 2; ++i) {
    readers.push_back(make_reader(GetParam(), {8, 1 << 20, false, false}));
    const std::uint64_t half = 8ull << 20;
    workloads.push_back(std::make_unique<SequentialWorkload>(fd, i * half, (i + 1) * half, 1 << 20, 4096,
                                                             ReadCheck{ReadCheck::pattern, 5}));
  }
  const PassResult pass = run_pass(readers, workloads);
  EXPECT_EQ(pass.bytes, 16u << 20);
  EXPECT_EQ(pass.mismatches, 0u);
  EXPECT_GT(pass.seconds, 0.0);
}

TEST_P(StorageEngine, ReadErrorNamesTheCall) {
  const PassResult pass = read_once(GetParam(), std::make_unique<SequentialWorkload>(-1, 0, 4096, 4096, 4096, ReadCheck{}),
                                    {4, 4096, false, false});
  EXPECT_NE(pass.error.find("Bad file descriptor"), std::string::npos) << pass.error;
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageEngine, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "io_uring" : "pread"; });

// Random reads go to the kernel one per call as their slots free (a batch kept a VMM's disk in
// lockstep); sequential ones in batches, so the block layer can merge neighbours.
TEST(StorageUring, RandomReadsAreSubmittedOneByOneAndBatchesTogether) {
  if (!uring_usable()) GTEST_SKIP() << "io_uring: " << io_uring_unavailable_reason();
  const fs::path dir = fresh_dir("submit");
  write_file(dir / "data.bin", random_bytes(1 << 20, 7));
  const int fd = open((dir / "data.bin").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const auto in_an_hour = std::chrono::steady_clock::now() + std::chrono::hours(1);
  const auto pass_of = [&](bool submit_each) {
    return read_once(true, std::make_unique<RandomWorkload>(fd, 1 << 20, 4096, 200, 5, ReadCheck{}, in_an_hour),
                     {32, 4096, false, true, false, submit_each});
  };
  const PassResult each = pass_of(true);
  const PassResult batched = pass_of(false);
  close(fd);
  fs::remove_all(dir);
  EXPECT_EQ(each.error, "");
  EXPECT_EQ(each.ops, 200u);
  EXPECT_EQ(each.submit_calls, 200u);
  EXPECT_EQ(batched.ops, 200u);
  EXPECT_LE(batched.submit_calls, 200u - 31u) << "the first call alone hands over 32 reads";
  EXPECT_NE(make_reader(true, {32, 4096, false, true, false, true})->description().find("submit=each"), std::string::npos);
}

// Random reads whose next offset takes 2 ms to choose: with one read per call, each read's
// latency starts at its own submission, not at the start of the refill up to 31 reads earlier.
class SlowToChooseWorkload : public RandomWorkload {
 public:
  using RandomWorkload::RandomWorkload;
  bool next(ReadRequest& request) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return RandomWorkload::next(request);
  }
};

TEST(StorageUring, EachReadsLatencyStartsAtItsOwnSubmission) {
  if (!uring_usable()) GTEST_SKIP() << "io_uring: " << io_uring_unavailable_reason();
  const fs::path dir = fresh_dir("latency-stamp");
  write_file(dir / "data.bin", random_bytes(1 << 20, 9));
  const int fd = open((dir / "data.bin").c_str(), O_RDONLY);  // cached: reads finish in microseconds
  ASSERT_GE(fd, 0);
  const auto in_an_hour = std::chrono::steady_clock::now() + std::chrono::hours(1);
  const PassResult pass =
      read_once(true, std::make_unique<SlowToChooseWorkload>(fd, 1 << 20, 4096, 32, 3, ReadCheck{}, in_an_hour),
                {32, 4096, false, true, false, true});
  close(fd);
  fs::remove_all(dir);
  ASSERT_EQ(pass.latencies_ns.size(), 32u);
  // Completions are seen when the refill ends (as fio sees them when it reaps), so the first
  // reads carry the refill after them; the last one submitted carries nothing. Stamped at the
  // refill's start instead, every read would carry the 31 x 2 ms of choosing before the last.
  const auto fastest = *std::min_element(pass.latencies_ns.begin(), pass.latencies_ns.end());
  EXPECT_LT(fastest, 30'000'000u) << "a read's latency includes the choosing of the reads before it";
}

TEST(StorageEngineChoice, ForcedPreadSaysSo) {
  EXPECT_FALSE(choose_engine("pread").uring);
  EXPECT_NE(choose_engine("pread").label.find("forced"), std::string::npos);
  if (uring_usable()) {
    EXPECT_TRUE(choose_engine("").uring);
  }
}

}  // namespace
}  // namespace pipecheck
