// The JPEG corpus the decode probe measures: a user's dataset read whole into memory (so decode
// is timed apart from I/O), or photo-like images generated and encoded with TurboJPEG.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pipecheck {

// What the JPEG headers say: dimensions, chroma subsampling (TJSAMP_*), coding process,
// colour space (TJCS_*).
struct JpegHeader {
  int width = 0;
  int height = 0;
  int subsampling = -1;  // TJSAMP_444, TJSAMP_420, ...; -1 when unknown
  bool progressive = false;
  int colorspace = -1;   // TJCS_YCbCr, TJCS_CMYK, TJCS_YCCK, ...; -1 when unknown
  // CMYK or YCCK: decoded through CMYK to RGB, a set of its own in the probe.
  bool cmyk() const;
  // The probe's image set this header falls in: "cmyk", else "progressive", else "baseline".
  const char* set_name() const;
};

struct JpegImage {
  std::string name;  // path relative to the dataset root, or "generated-N.jpg"
  std::vector<unsigned char> bytes;
  JpegHeader header;
};

// A file left out of the measurement, and why ("empty file", "not a JPEG", "truncated", ...).
struct BadJpegFile {
  std::string name;
  std::string reason;
};

struct JpegCorpus {
  std::string source;  // "generated" or the dataset directory
  std::vector<JpegImage> images;
  std::vector<BadJpegFile> bad_files;
  std::size_t files_found = 0;  // JPEG-named files under the root before any sampling
  std::string description;      // what the corpus is, for the context (generated content, ...)

  std::size_t total_bytes() const;
  std::size_t progressive_count() const;  // progressive RGB/gray images (CMYK ones count as CMYK)
  std::size_t cmyk_count() const;
  // Median width and height, each taken on its own.
  std::pair<int, int> median_dimensions() const;
  // "4:2:0" -> how many images.
  std::map<std::string, std::size_t> subsampling_histogram() const;
};

// "4:2:0", "4:4:4", "gray", ... for a TJSAMP_* value.
std::string subsampling_name(int subsampling);

// Reads the SOF marker: true for SOF2/SOF6/SOF10/SOF14 (progressive). Stops at SOS.
bool is_progressive_jpeg(const unsigned char* data, std::size_t size);

// Reads the headers and decodes the image once: "" when the file is a sound JPEG, otherwise
// the reason it is left out. Warnings (truncated data, corrupt entropy data) count as bad:
// their decode time says nothing about sound images, and a loader would reject them.
std::string check_jpeg(const std::vector<unsigned char>& bytes, JpegHeader& header);

// Images larger than this are left out as "too large": a header can claim any size, and decoding
// it would allocate before a single check (a 1 kB file claiming 16384x16383 took 946 MB). The limit
// is Pillow's: it refuses twice its MAX_IMAGE_PIXELS (89478485) as a decompression bomb, so a
// training loader reading through Pillow could not have used such an image either.
constexpr std::uint64_t kMaxJpegPixels = 2 * std::uint64_t{89478485};

struct JpegFileList {
  std::vector<std::filesystem::path> files;  // sorted by path
  std::vector<std::pair<std::filesystem::path, std::string>> unreadable_dirs;  // sub-directory, why
  // Links out of the dataset, dangling links, loops, FIFOs and devices: not read (core/dataset_walk.hpp).
  std::vector<std::pair<std::filesystem::path, std::string>> left_out;
};

// Every *.jpg / *.jpeg (any case) under `root` by the one dataset walk (core/dataset_walk.hpp):
// links followed only while they stay under `root`, each directory once; the sub-directories
// that could not be listed and the entries left out, named.
// Throws UsageError, in the system's words, when `root` is not a readable directory.
JpegFileList find_jpeg_files(const std::filesystem::path& root);

// Loads the dataset into memory, at most `max_files` of it (an even stride through the sorted
// list when there are more). Bad files are counted and named, never fatal. Throws UsageError
// when the directory is missing or holds no decodable JPEG.
JpegCorpus load_jpeg_directory(const std::filesystem::path& root, std::size_t max_files);
// The refusals of load_jpeg_directory that need no decoding (no such folder, not a folder, no
// .jpg/.jpeg file in it), so `pipecheck run --images` refuses them before any probe runs.
// Throws UsageError naming --images.
void check_jpeg_directory(const std::filesystem::path& root);

// Photo-like RGB8: smooth gradients, soft blobs, hard-edged shapes and sensor-like noise, so
// decode cost resembles a photograph's (flat images decode unrealistically fast).
std::vector<unsigned char> make_photo_like_rgb(int width, int height, std::uint32_t seed);

// Encodes RGB8 with TurboJPEG. `subsampling` is a TJSAMP_* value. Throws RunError on failure.
std::vector<unsigned char> encode_jpeg(const std::vector<unsigned char>& rgb, int width,
                                       int height, int quality, int subsampling,
                                       bool progressive);

struct GeneratedCorpusSpec {
  int width = 2000;
  int height = 1500;
  int quality = 90;
  std::size_t count = 32;
  int subsampling = 2;  // TJSAMP_420
  bool progressive = false;
};

// Generates `count` distinct images. The first image's source pixels are returned through
// `first_rgb` (when not null) so decodes can be verified against what was encoded.
JpegCorpus generate_jpeg_corpus(const GeneratedCorpusSpec& spec,
                                std::vector<unsigned char>* first_rgb = nullptr);

}  // namespace pipecheck
