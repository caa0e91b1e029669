// The JPEG corpus: dataset walking (sub-directories, a symlink loop), bad files counted and
// named, progressive detection, subsampling, and the generated photo-like images.
#include "decode/jpeg_corpus.hpp"

#include <gtest/gtest.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/errors.hpp"

#include "as_nobody.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("pipecheck-decodec-" + tag + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_bytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<unsigned char> small_jpeg(int w, int h, int subsampling, bool progressive, std::uint32_t seed = 7) {
  return encode_jpeg(make_photo_like_rgb(w, h, seed), w, h, 90, subsampling, progressive);
}

// Offset of the first byte after the SOS segment: where entropy-coded data begins.
std::size_t scan_data_offset(const std::vector<unsigned char>& jpeg) {
  for (std::size_t i = 2; i + 3 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA) return i + 2 + ((jpeg[i + 2] << 8) | jpeg[i + 3]);
  }
  return jpeg.size();
}

// The header kept, the scan data replaced by random bytes, EOI kept: damage only a decode finds.
std::vector<unsigned char> corrupt_after_header(std::vector<unsigned char> jpeg) {
  std::uint32_t state = 99;
  for (std::size_t i = scan_data_offset(jpeg); i + 2 < jpeg.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    jpeg[i] = static_cast<unsigned char>(state >> 24);
  }
  return jpeg;
}

TEST(JpegCorpus, DetectsProgressiveFromSofMarker) {
  const auto baseline = small_jpeg(67, 45, TJSAMP_420, false);
  const auto progressive = small_jpeg(67, 45, TJSAMP_420, true);
  EXPECT_FALSE(is_progressive_jpeg(baseline.data(), baseline.size()));
  EXPECT_TRUE(is_progressive_jpeg(progressive.data(), progressive.size()));
  const std::vector<unsigned char> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_FALSE(is_progressive_jpeg(text.data(), text.size()));
}

TEST(JpegCorpus, CheckReadsHeaderOfSoundFiles) {
  JpegHeader header;
  EXPECT_EQ(check_jpeg(small_jpeg(67, 45, TJSAMP_444, true), header), "");
  EXPECT_EQ(header.width, 67);
  EXPECT_EQ(header.height, 45);
  EXPECT_EQ(header.subsampling, TJSAMP_444);
  EXPECT_TRUE(header.progressive);
  EXPECT_EQ(subsampling_name(header.subsampling), "4:4:4");
  EXPECT_EQ(subsampling_name(TJSAMP_420), "4:2:0");
}

TEST(JpegCorpus, CheckNamesEachKindOfBadFile) {
  JpegHeader header;
  const auto good = small_jpeg(96, 64, TJSAMP_420, false);
  EXPECT_EQ(check_jpeg({}, header), "empty file");
  EXPECT_NE(check_jpeg({'n', 'o', 't', ' ', 'j', 'p', 'g'}, header).find("not a JPEG"), std::string::npos);
  // A file of the SOI marker alone was called "no SOI marker".
  EXPECT_EQ(check_jpeg({0xFF, 0xD8}, header), "truncated (the SOI marker and nothing after it)");
  const std::vector<unsigned char> truncated(good.begin(), good.begin() + good.size() / 2);
  EXPECT_NE(check_jpeg(truncated, header).find("truncated"), std::string::npos);
  const std::string corrupt = check_jpeg(corrupt_after_header(good), header);
  EXPECT_TRUE(corrupt.find("corrupt") == 0 || corrupt.find("damaged") == 0) << corrupt;
}

// The SOF0 frame header's height and width set to claim another size.
std::vector<unsigned char> claiming_size(std::vector<unsigned char> jpeg, int width, int height) {
  for (std::size_t i = 2; i + 8 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
      jpeg[i + 5] = static_cast<unsigned char>(height >> 8);
      jpeg[i + 6] = static_cast<unsigned char>(height & 0xff);
      jpeg[i + 7] = static_cast<unsigned char>(width >> 8);
      jpeg[i + 8] = static_cast<unsigned char>(width & 0xff);
      break;
    }
  }
  return jpeg;
}

TEST(JpegCorpus, TrailersAfterEoiAreSoundAHugeClaimedSizeIsNot) {
  JpegHeader header;
  // Phones append several KiB after EOI (Samsung's SEFT trailer): the image itself is sound.
  auto trailer = small_jpeg(96, 64, TJSAMP_420, false);
  trailer.insert(trailer.end(), 2048, 'A');
  for (char c : std::string("SEFT")) trailer.push_back(static_cast<unsigned char>(c));
  EXPECT_EQ(check_jpeg(trailer, header), "");
  // A header claiming 65000x65000 is refused before any decode buffer is sized from it.
  const auto huge = claiming_size(small_jpeg(96, 64, TJSAMP_420, false), 65000, 65000);
  EXPECT_EQ(check_jpeg(huge, header), "too large: 65000x65000 (more than 178956970 pixels)");
  // Just under 2^28 pixels was decoded (946 MB for a 1 kB file); Pillow refuses it as a bomb.
  const auto bomb = claiming_size(small_jpeg(96, 64, TJSAMP_420, false), 16384, 16383);
  EXPECT_EQ(check_jpeg(bomb, header), "too large: 16384x16383 (more than 178956970 pixels)");
}

TEST(JpegCorpus, UnreadableSubdirectoriesAreNamed) {
  if (geteuid() == 0) GTEST_SKIP() << "root lists a chmod 000 directory anyway";
  ScratchDir dir("unreadable");
  write_bytes(dir.path / "a.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  fs::create_directories(dir.path / "locked");
  write_bytes(dir.path / "locked/b.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  fs::permissions(dir.path / "locked", fs::perms::none);
  const JpegCorpus corpus = load_jpeg_directory(dir.path, 10);
  fs::permissions(dir.path / "locked", fs::perms::owner_all);
  EXPECT_EQ(corpus.images.size(), 1u);
  ASSERT_EQ(corpus.bad_files.size(), 1u);
  EXPECT_EQ(corpus.bad_files[0].name, "locked/");
  EXPECT_EQ(corpus.bad_files[0].reason.rfind("unreadable directory: ", 0), 0u) << corpus.bad_files[0].reason;
}

// "2 of 2 files read" when one could not be read: only the files read count.
TEST(JpegCorpus, DescriptionCountsOnlyTheFilesRead) {
  ScratchDir dir("unreadable-file");
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  write_bytes(dir.path / "a.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  write_bytes(dir.path / "b.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  fs::permissions(dir.path / "a.jpg", fs::perms::owner_read | fs::perms::others_read);
  fs::permissions(dir.path / "b.jpg", fs::perms::owner_read);  // root's only
  const auto description = test::as_nobody([&] { return load_jpeg_directory(dir.path, 10).description; });
  ASSERT_TRUE(description.has_value()) << "could not run as nobody";
  EXPECT_EQ(*description, "dataset " + dir.path.string() + ": 1 of 2 JPEG files read into memory (1 could not be read)");
}

TEST(JpegCorpus, OddNamesAreEscapedOnce) {
  ScratchDir dir("odd");
  const fs::path root = dir.path / "set\xff\x1b";
  write_bytes(root / "caf\xe9.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  write_bytes(root / "bad\x01.jpg", {0xff, 0xd8, 0x00});
  const JpegCorpus corpus = load_jpeg_directory(root, 10);
  EXPECT_EQ(corpus.source, dir.path.string() + "/set\\xff\\x1b");
  ASSERT_EQ(corpus.bad_files.size(), 1u);
  EXPECT_EQ(corpus.bad_files[0].name, "bad\\x01.jpg");
  ASSERT_EQ(corpus.images.size(), 1u);
  EXPECT_EQ(corpus.images[0].name, "caf\\xe9.jpg");
}

TEST(JpegCorpus, LoadsDatasetWithSubdirectoriesLoopAndBadFiles) {
  ScratchDir dir("load");
  const auto good = small_jpeg(96, 64, TJSAMP_420, false);
  write_bytes(dir.path / "sub/a.jpg", small_jpeg(67, 45, TJSAMP_420, false));
  write_bytes(dir.path / "sub/deeper/b.JPEG", small_jpeg(33, 17, TJSAMP_444, true));
  write_bytes(dir.path / "c.jpg", corrupt_after_header(good));
  write_bytes(dir.path / "d.jpg", std::vector<unsigned char>(good.begin(), good.begin() + good.size() / 2));
  write_bytes(dir.path / "e.jpg", {'G', 'I', 'F', '8', '9', 'a', 0, 0});
  write_bytes(dir.path / "f.jpeg", {});
  write_bytes(dir.path / "notes.txt", good);  // not a JPEG name: not counted
  fs::create_directory_symlink("..", dir.path / "sub/loop");  // back up to the root

  const JpegCorpus corpus = load_jpeg_directory(dir.path, 100);
  EXPECT_EQ(corpus.files_found, 6u);
  ASSERT_EQ(corpus.images.size(), 2u);
  EXPECT_EQ(corpus.images[0].name, "sub/a.jpg");
  EXPECT_EQ(corpus.images[1].name, "sub/deeper/b.JPEG");
  EXPECT_EQ(corpus.progressive_count(), 1u);
  const auto histogram = corpus.subsampling_histogram();
  EXPECT_EQ(histogram.at("4:2:0"), 1u);
  EXPECT_EQ(histogram.at("4:4:4"), 1u);
  ASSERT_EQ(corpus.bad_files.size(), 5u);  // the loop is named too (core/dataset_walk.hpp)
  std::map<std::string, std::string> bad;
  for (const auto& b : corpus.bad_files) bad[b.name] = b.reason;
  EXPECT_TRUE(bad.at("c.jpg").find("corrupt") == 0 || bad.at("c.jpg").find("damaged") == 0) << bad.at("c.jpg");
  EXPECT_NE(bad.at("d.jpg").find("truncated"), std::string::npos);
  EXPECT_NE(bad.at("e.jpg").find("not a JPEG"), std::string::npos);
  EXPECT_EQ(bad.at("f.jpeg"), "empty file");
  EXPECT_EQ(bad.at("sub/loop"), "left out: link to a folder already walked (a loop or a second path)");
  EXPECT_EQ(corpus.total_bytes(), corpus.images[0].bytes.size() + corpus.images[1].bytes.size());
}

// A CMYK JPEG (Pillow's, tests/data/pillow/make.py) and a progressive one beside a baseline:
// all three are images; CMYK is counted as such, not as progressive, baseline or bad.
TEST(JpegCorpus, CmykJpegsAreImagesCountedApart) {
  ScratchDir dir("cmyk");
  fs::copy_file(fs::path(PIPECHECK_TEST_DATA) / "pillow/cmyk.jpg", dir.path / "cmyk.jpg");
  write_bytes(dir.path / "rgb.jpg", small_jpeg(40, 30, TJSAMP_420, false));
  write_bytes(dir.path / "prog.jpg", small_jpeg(40, 30, TJSAMP_420, true));
  const JpegCorpus corpus = load_jpeg_directory(dir.path, 100);
  EXPECT_TRUE(corpus.bad_files.empty()) << corpus.bad_files[0].name << ": " << corpus.bad_files[0].reason;
  ASSERT_EQ(corpus.images.size(), 3u);
  EXPECT_EQ(corpus.cmyk_count(), 1u);
  EXPECT_EQ(corpus.progressive_count(), 1u);
  EXPECT_TRUE(corpus.images[0].header.cmyk());  // sorted: cmyk.jpg first
  EXPECT_FALSE(corpus.images[1].header.cmyk());
}

TEST(JpegCorpus, SamplesEvenlyWhenOverTheCap) {
  ScratchDir dir("cap");
  for (int i = 0; i < 4; ++i) write_bytes(dir.path / ("img" + std::to_string(i) + ".jpg"), small_jpeg(16, 16, TJSAMP_420, false, i + 1));
  const JpegCorpus corpus = load_jpeg_directory(dir.path, 2);
  EXPECT_EQ(corpus.files_found, 4u);
  ASSERT_EQ(corpus.images.size(), 2u);
  EXPECT_EQ(corpus.images[0].name, "img0.jpg");
  EXPECT_EQ(corpus.images[1].name, "img2.jpg");
}

void expect_usage_error(const fs::path& path, const std::string& says) {
  try {
    load_jpeg_directory(path, 10);
    ADD_FAILURE() << "no error for " << path;
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(says), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(JpegCorpus, BadDirectoriesGiveUsageErrors) {
  ScratchDir dir("bad");
  expect_usage_error(dir.path / "missing", "no such directory");
  write_bytes(dir.path / "file.jpg", small_jpeg(16, 16, TJSAMP_420, false));
  expect_usage_error(dir.path / "file.jpg", "not a directory");
  fs::create_directories(dir.path / "empty");
  write_bytes(dir.path / "empty/readme.txt", {'x'});
  expect_usage_error(dir.path / "empty", "no .jpg/.jpeg files");
  fs::create_directories(dir.path / "allbad");
  write_bytes(dir.path / "allbad/x.jpg", {});
  expect_usage_error(dir.path / "allbad", "x.jpg");
}

TEST(JpegCorpus, GeneratedImagesArePhotoLikeAndDistinct) {
  std::vector<unsigned char> first;
  const JpegCorpus corpus = generate_jpeg_corpus({160, 120, 90, 3, TJSAMP_420, false}, &first);
  ASSERT_EQ(corpus.images.size(), 3u);
  EXPECT_EQ(first.size(), 160u * 120u * 3u);
  EXPECT_NE(corpus.images[0].bytes, corpus.images[1].bytes);
  JpegHeader header;
  EXPECT_EQ(check_jpeg(corpus.images[2].bytes, header), "");
  EXPECT_EQ(header.subsampling, TJSAMP_420);
  EXPECT_FALSE(header.progressive);
  // Not flat: pixel spread well above zero, and over a bit per pixel after compression
  // (a flat image takes a small fraction of that).
  double mean = 0, var = 0;
  for (auto v : first) mean += v;
  mean /= first.size();
  for (auto v : first) var += (v - mean) * (v - mean);
  EXPECT_GT(std::sqrt(var / first.size()), 20.0);
  EXPECT_GT(corpus.images[0].bytes.size() * 8.0 / (160 * 120), 1.0);
  EXPECT_NE(corpus.description.find("generated"), std::string::npos);
}

TEST(JpegCorpus, MedianDimensions) {
  JpegCorpus corpus;
  for (int w : {100, 300, 200}) corpus.images.push_back({"x", {}, {w, w / 2, TJSAMP_420, false}});
  EXPECT_EQ(corpus.median_dimensions(), std::make_pair(200, 100));
}

}  // namespace
}  // namespace pipecheck
