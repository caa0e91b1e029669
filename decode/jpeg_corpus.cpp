// Loads a JPEG dataset into memory or generates a photo-like one, and describes it.
#include "decode/jpeg_corpus.hpp"

#include <sys/stat.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <set>
#include <system_error>
#include <utility>

#include "core/dataset_walk.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/text_escape.hpp"
#include "decode/jpeg_decoder.hpp"

namespace pipecheck {

std::size_t JpegCorpus::total_bytes() const {
  std::size_t total = 0;
  for (const auto& image : images) total += image.bytes.size();
  return total;
}

bool JpegHeader::cmyk() const { return is_cmyk_colorspace(colorspace); }

const char* JpegHeader::set_name() const { return cmyk() ? "cmyk" : progressive ? "progressive" : "baseline"; }

std::size_t JpegCorpus::progressive_count() const {
  return static_cast<std::size_t>(std::count_if(images.begin(), images.end(), [](const JpegImage& i) {
    return i.header.progressive && !i.header.cmyk();
  }));
}

std::size_t JpegCorpus::cmyk_count() const {
  return static_cast<std::size_t>(
      std::count_if(images.begin(), images.end(), [](const JpegImage& i) { return i.header.cmyk(); }));
}

std::pair<int, int> JpegCorpus::median_dimensions() const {
  if (images.empty()) return {0, 0};
  std::vector<int> widths, heights;
  for (const auto& image : images) {
    widths.push_back(image.header.width);
    heights.push_back(image.header.height);
  }
  const auto mid = widths.size() / 2;
  std::nth_element(widths.begin(), widths.begin() + mid, widths.end());
  std::nth_element(heights.begin(), heights.begin() + mid, heights.end());
  return {widths[mid], heights[mid]};
}

std::map<std::string, std::size_t> JpegCorpus::subsampling_histogram() const {
  std::map<std::string, std::size_t> histogram;
  for (const auto& image : images) ++histogram[subsampling_name(image.header.subsampling)];
  return histogram;
}

std::string subsampling_name(int subsampling) {
  switch (subsampling) {
    case TJSAMP_444: return "4:4:4";
    case TJSAMP_422: return "4:2:2";
    case TJSAMP_420: return "4:2:0";
    case TJSAMP_GRAY: return "gray";
    case TJSAMP_440: return "4:4:0";
    case TJSAMP_411: return "4:1:1";
    default: return "other";
  }
}

bool is_progressive_jpeg(const unsigned char* data, std::size_t size) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return false;
  std::size_t pos = 2;
  while (pos + 4 <= size) {
    if (data[pos] != 0xFF) return false;  // lost sync: not a marker where one must be
    const unsigned char marker = data[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    // SOF2, SOF6, SOF10, SOF14: the progressive processes (Huffman or arithmetic).
    if (marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE) return true;
    if ((marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
         marker != 0xCC) ||
        marker == 0xDA) {
      return false;  // another SOF, or the scan began without one
    }
    const std::size_t length = (std::size_t(data[pos + 2]) << 8) | data[pos + 3];
    pos += 2 + length;
  }
  return false;
}

namespace {

// A scoped TurboJPEG handle, so no early return leaks one.
struct TjHandle {
  tjhandle handle;
  explicit TjHandle(tjhandle h) : handle(h) {}
  ~TjHandle() {
    if (handle != nullptr) tjDestroy(handle);
  }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
};

// Whether EOI (FF D9) is among the last KiB: only to word why a decode failed ("truncated"),
// never to reject a file that decodes (phones append trailers of several KiB after EOI).
bool ends_with_eoi(const std::vector<unsigned char>& bytes) {
  const std::size_t from = bytes.size() > 1024 ? bytes.size() - 1024 : 0;
  for (std::size_t i = bytes.size(); i-- > from + 1;) {
    if (bytes[i - 1] == 0xFF && bytes[i] == 0xD9) return true;
  }
  return false;
}

}  // namespace

std::string check_jpeg(const std::vector<unsigned char>& bytes, JpegHeader& header) {
  if (bytes.empty()) return "empty file";
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) return "not a JPEG (no SOI marker)";
  if (bytes.size() < 4) return "truncated (the SOI marker and nothing after it)";
  JpegDecoder decoder;
  TjHandle probe(tjInitDecompress());
  if (probe.handle == nullptr) throw RunError("tjInitDecompress failed");
  if (tjDecompressHeader3(probe.handle, bytes.data(), static_cast<unsigned long>(bytes.size()),
                          &header.width, &header.height, &header.subsampling, &header.colorspace) != 0) {
    return "bad header: " + turbojpeg_error(probe.handle, "tjDecompressHeader3");
  }
  header.progressive = is_progressive_jpeg(bytes.data(), bytes.size());
  // The header alone can claim 65000x65000: decoding it would take 12 GB before any check.
  if (static_cast<std::uint64_t>(header.width) * static_cast<std::uint64_t>(header.height) > kMaxJpegPixels) {
    return "too large: " + std::to_string(header.width) + "x" + std::to_string(header.height) + " (more than " +
           std::to_string(kMaxJpegPixels) + " pixels)";
  }
  RgbImage rgb;
  const DecodeResult result = decoder.decode(bytes.data(), bytes.size(), JpegScale{1, 1}, rgb);
  if (result.ok) return "";
  if (!ends_with_eoi(bytes)) return "truncated (no EOI marker): " + result.message;
  return (result.warning ? "damaged: " : "corrupt: ") + result.message;
}

namespace {

bool has_jpeg_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg";
}

std::vector<unsigned char> read_whole_file(const std::filesystem::path& path, std::string& error) {
  try {
    const std::string text = read_file(path);  // a FIFO swapped in meanwhile is refused, not waited on
    return std::vector<unsigned char>(text.begin(), text.end());
  } catch (const RunError& failure) {
    error = failure.what();
    return {};
  }
}

}  // namespace

JpegFileList find_jpeg_files(const std::filesystem::path& root) {
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    const int error = errno;  // EACCES on a parent, ELOOP, ...: in the system's words
    throw UsageError("--images " + escape_name(root.string()) + ": " +
                     (error == ENOENT ? "no such directory" : std::error_code(error, std::generic_category()).message()));
  }
  if (!S_ISDIR(st.st_mode)) throw UsageError("--images " + escape_name(root.string()) + ": not a directory");
  // The one dataset walk (core/dataset_walk.hpp), shared with the storage probe: a link is
  // followed only while it stays under the root; what is left out is named.
  const DatasetWalk walk = walk_dataset(root, has_jpeg_extension);
  JpegFileList list;
  for (const auto& file : walk.files) list.files.push_back(file.path);
  const std::string prefix = "unreadable folder: ";
  for (const auto& folder : walk.unreadable) {
    list.unreadable_dirs.push_back(
        {folder.path, folder.why.rfind(prefix, 0) == 0 ? folder.why.substr(prefix.size()) : folder.why});
  }
  for (const auto& entry : walk.left_out) list.left_out.push_back({entry.path, entry.why});
  if (!list.unreadable_dirs.empty() && list.unreadable_dirs.front().first == root) {
    throw UsageError("--images " + escape_name(root.string()) + ": " + list.unreadable_dirs.front().second);
  }
  return list;
}

namespace {

// The files of a dataset, or a UsageError when it has no JPEG to read (names escaped).
JpegFileList jpeg_files_or_refuse(const std::filesystem::path& root, std::vector<BadJpegFile>& unreadable_dirs) {
  JpegFileList list = find_jpeg_files(root);
  for (const auto& [dir, why] : list.unreadable_dirs) {
    unreadable_dirs.push_back({escape_name(std::filesystem::relative(dir, root).string()) + "/", "unreadable directory: " + why});
  }
  for (const auto& [path, why] : list.left_out) {
    unreadable_dirs.push_back({escape_name(path.lexically_relative(root).string()), "left out: " + why});
  }
  if (list.files.empty()) {
    std::string text = "--images " + escape_name(root.string()) + ": no .jpg/.jpeg files found";
    if (!unreadable_dirs.empty()) {
      text += " (" + std::to_string(unreadable_dirs.size()) + " unreadable directories or entries left out, first " +
              unreadable_dirs[0].name + ": " + unreadable_dirs[0].reason + ")";
    }
    throw UsageError(text);
  }
  return list;
}

}  // namespace

void check_jpeg_directory(const std::filesystem::path& root) {
  std::vector<BadJpegFile> unreadable_dirs;
  jpeg_files_or_refuse(root, unreadable_dirs);
}

JpegCorpus load_jpeg_directory(const std::filesystem::path& root, std::size_t max_files) {
  JpegCorpus corpus;
  const JpegFileList list = jpeg_files_or_refuse(root, corpus.bad_files);
  const auto& files = list.files;
  // Escaped like every name (core/text_escape.hpp); never the word that means a generated corpus.
  corpus.source = escape_name(root.string());
  if (corpus.source == "generated") corpus.source = "./generated";
  corpus.files_found = files.size();
  const std::size_t take = std::max<std::size_t>(1, std::min(files.size(), max_files));
  std::size_t read = 0;
  for (std::size_t k = 0; k < take; ++k) {
    const auto& path = files[k * files.size() / take];  // an even stride through the list
    const std::string name = escape_name(std::filesystem::relative(path, root).string());
    std::string error;
    JpegImage image{name, {}, {}};
    try {
      image.bytes = read_whole_file(path, error);
      if (error.empty()) ++read;
      if (error.empty()) error = check_jpeg(image.bytes, image.header);
    } catch (const std::bad_alloc&) {
      error = "out of memory reading or decoding it";  // one huge file, not the whole corpus
    }
    if (!error.empty()) {
      corpus.bad_files.push_back({name, error});
    } else {
      corpus.images.push_back(std::move(image));
    }
  }
  // Only the files actually read count: one that could not be opened is not "read".
  corpus.description = "dataset " + corpus.source + ": " + std::to_string(read) + " of " +
                       std::to_string(files.size()) + " JPEG files read into memory";
  if (read < take) corpus.description += " (" + std::to_string(take - read) + " could not be read)";
  if (corpus.images.empty()) {
    throw UsageError("--images " + corpus.source + ": no decodable JPEG among " +
                     std::to_string(take) + " files (first bad: " + corpus.bad_files[0].name +
                     ": " + corpus.bad_files[0].reason + ")");
  }
  return corpus;
}

namespace {

// xorshift32: fast, deterministic noise without <random>'s per-call cost.
std::uint32_t next_random(std::uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

struct Shape {
  int x0, y0, x1, y1;
  bool ellipse;
  int colour[3];
};

}  // namespace

std::vector<unsigned char> make_photo_like_rgb(int width, int height, std::uint32_t seed) {
  std::uint32_t rng = seed * 2654435761u + 12345u;
  if (rng == 0) rng = 1;
  // Low-frequency gradients: a sky-to-ground ramp and a few slow waves per channel.
  double freq[3][2], phase[3], base[3];
  for (int c = 0; c < 3; ++c) {
    freq[c][0] = 1.0 + next_random(rng) % 5;
    freq[c][1] = 1.0 + next_random(rng) % 4;
    phase[c] = (next_random(rng) % 628) / 100.0;
    base[c] = 60.0 + next_random(rng) % 120;
  }
  std::vector<Shape> shapes(12);  // hard edges: objects in the scene
  for (auto& s : shapes) {
    s.x0 = static_cast<int>(next_random(rng) % width);
    s.y0 = static_cast<int>(next_random(rng) % height);
    s.x1 = std::min(width, s.x0 + 1 + static_cast<int>(next_random(rng) % (width / 3 + 1)));
    s.y1 = std::min(height, s.y0 + 1 + static_cast<int>(next_random(rng) % (height / 3 + 1)));
    s.ellipse = next_random(rng) % 2 == 0;
    for (int& v : s.colour) v = static_cast<int>(next_random(rng) % 256);
  }
  // Per-row and per-column wave terms, so the per-pixel work is additions.
  std::vector<double> wave_x(static_cast<std::size_t>(width) * 3), wave_y(static_cast<std::size_t>(height) * 3);
  constexpr double kTwoPi = 6.283185307179586;
  for (int c = 0; c < 3; ++c) {
    for (int x = 0; x < width; ++x) wave_x[x * 3 + c] = 45.0 * std::sin(kTwoPi * freq[c][0] * x / width + phase[c]);
    for (int y = 0; y < height; ++y) wave_y[y * 3 + c] = 35.0 * std::cos(kTwoPi * freq[c][1] * y / height) + 40.0 * y / height;
  }
  std::vector<unsigned char> rgb(static_cast<std::size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
      const int noise = static_cast<int>(next_random(rng) % 13) - 6;  // sensor-like grain
      for (int c = 0; c < 3; ++c) {
        const double v = base[c] + wave_x[x * 3 + c] + wave_y[y * 3 + c] + noise;
        rgb[i + c] = static_cast<unsigned char>(std::clamp(static_cast<int>(v), 0, 255));
      }
    }
  }
  for (const auto& s : shapes) {
    const double cx = (s.x0 + s.x1) / 2.0, cy = (s.y0 + s.y1) / 2.0;
    const double rx = std::max(1.0, (s.x1 - s.x0) / 2.0), ry = std::max(1.0, (s.y1 - s.y0) / 2.0);
    for (int y = s.y0; y < s.y1; ++y) {
      for (int x = s.x0; x < s.x1; ++x) {
        if (s.ellipse && std::pow((x - cx) / rx, 2) + std::pow((y - cy) / ry, 2) > 1.0) continue;
        const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
        // Shade across the object and keep the grain, so it is not a flat patch.
        const int shade = static_cast<int>(30.0 * (x - s.x0) / (s.x1 - s.x0 + 1)) +
                          static_cast<int>(next_random(rng) % 13) - 6;
        for (int c = 0; c < 3; ++c) {
          rgb[i + c] = static_cast<unsigned char>(std::clamp(s.colour[c] + shade, 0, 255));
        }
      }
    }
  }
  return rgb;
}

std::vector<unsigned char> encode_jpeg(const std::vector<unsigned char>& rgb, int width,
                                       int height, int quality, int subsampling,
                                       bool progressive) {
  TjHandle compressor(tjInitCompress());
  if (compressor.handle == nullptr) throw RunError(std::string("tjInitCompress: ") + tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int flags = progressive ? TJFLAG_PROGRESSIVE : 0;
  if (tjCompress2(compressor.handle, rgb.data(), width, 0, height, TJPF_RGB, &jpeg, &size,
                  subsampling, quality, flags) != 0) {
    const std::string message = turbojpeg_error(compressor.handle, "tjCompress2");
    tjFree(jpeg);
    throw RunError(message);
  }
  std::vector<unsigned char> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  return bytes;
}

JpegCorpus generate_jpeg_corpus(const GeneratedCorpusSpec& spec,
                                std::vector<unsigned char>* first_rgb) {
  JpegCorpus corpus;
  corpus.source = "generated";
  for (std::size_t i = 0; i < spec.count; ++i) {
    auto rgb = make_photo_like_rgb(spec.width, spec.height, static_cast<std::uint32_t>(i + 1));
    JpegImage image{"generated-" + std::to_string(i) + ".jpg",
                    encode_jpeg(rgb, spec.width, spec.height, spec.quality, spec.subsampling,
                                spec.progressive),
                    {spec.width, spec.height, spec.subsampling, spec.progressive}};
    corpus.images.push_back(std::move(image));
    if (i == 0 && first_rgb != nullptr) *first_rgb = std::move(rgb);
  }
  corpus.files_found = spec.count;
  corpus.description =
      "generated: " + std::to_string(spec.count) + " photo-like images (gradients, shaded shapes "
      "with hard edges, +/-6 grain) " + std::to_string(spec.width) + "x" +
      std::to_string(spec.height) + ", quality " + std::to_string(spec.quality) + ", " +
      subsampling_name(spec.subsampling) + (spec.progressive ? ", progressive" : ", baseline") +
      ", TurboJPEG " + "default (accurate) DCT";
  return corpus;
}

}  // namespace pipecheck
