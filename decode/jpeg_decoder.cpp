// CPU JPEG decode through TurboJPEG, and the resize a training loader applies after it.
#include "decode/jpeg_decoder.hpp"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/errors.hpp"

namespace pipecheck {

int scaled_dimension(int dimension, JpegScale scale) {
  return (dimension * scale.num + scale.denom - 1) / scale.denom;
}

JpegScale pick_dct_scale(int width, int height, int target_width, int target_height) {
  int count = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&count);
  JpegScale best{1, 1};
  for (int i = 0; factors != nullptr && i < count; ++i) {
    const JpegScale s{factors[i].num, factors[i].denom};
    if (s.num > s.denom) continue;  // upscaling never saves work
    if (scaled_dimension(width, s) < target_width || scaled_dimension(height, s) < target_height) {
      continue;
    }
    if (s.num * best.denom < best.num * s.denom) best = s;  // s < best
  }
  return best;
}

namespace {

constexpr int kWeightBits = 14;

// For each output index: the first input index and the fixed-point weights of its taps.
struct ResampleTaps {
  std::vector<int> first;
  std::vector<int> count;
  std::vector<std::int32_t> weights;  // `max_taps` per output index
  int max_taps = 0;
};

// Triangle filter, widened by the shrink factor; weights normalized so they sum to exactly
// 1 << kWeightBits (the rounding remainder goes to the largest tap).
ResampleTaps make_taps(int in_size, int out_size) {
  ResampleTaps taps;
  const double scale = static_cast<double>(in_size) / out_size;
  const double support = std::max(1.0, scale);
  taps.max_taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(out_size);
  taps.count.resize(out_size);
  taps.weights.assign(static_cast<std::size_t>(out_size) * taps.max_taps, 0);
  std::vector<double> w(taps.max_taps);
  for (int o = 0; o < out_size; ++o) {
    const double center = (o + 0.5) * scale;
    int lo = std::max(0, static_cast<int>(std::floor(center - support)));
    int hi = std::min(in_size, static_cast<int>(std::ceil(center + support)));
    hi = std::min(hi, lo + taps.max_taps);
    double total = 0;
    for (int i = lo; i < hi; ++i) {
      w[i - lo] = std::max(0.0, 1.0 - std::abs((i + 0.5 - center) / support));
      total += w[i - lo];
    }
    std::int32_t* out = &taps.weights[static_cast<std::size_t>(o) * taps.max_taps];
    std::int32_t sum = 0;
    int largest = 0;
    for (int i = lo; i < hi; ++i) {
      out[i - lo] = static_cast<std::int32_t>(std::lround(w[i - lo] / total * (1 << kWeightBits)));
      sum += out[i - lo];
      if (out[i - lo] > out[largest]) largest = i - lo;
    }
    out[largest] += (1 << kWeightBits) - sum;
    taps.first[o] = lo;
    taps.count[o] = hi - lo;
  }
  return taps;
}

unsigned char clamp_round(std::int32_t acc) {
  const std::int32_t v = (acc + (1 << (kWeightBits - 1))) >> kWeightBits;
  return static_cast<unsigned char>(std::clamp(v, 0, 255));
}

// Resamples each row along x: in (in_w x rows) -> out (out_w x rows).
void resample_rows(const unsigned char* in, int in_width, int rows, const ResampleTaps& taps,
                   unsigned char* out, int out_width) {
  for (int y = 0; y < rows; ++y) {
    const unsigned char* src = in + static_cast<std::size_t>(y) * in_width * 3;
    unsigned char* dst = out + static_cast<std::size_t>(y) * out_width * 3;
    for (int x = 0; x < out_width; ++x) {
      const std::int32_t* w = &taps.weights[static_cast<std::size_t>(x) * taps.max_taps];
      const unsigned char* p = src + taps.first[x] * 3;
      std::int32_t r = 0, g = 0, b = 0;
      for (int t = 0; t < taps.count[x]; ++t) {
        r += p[t * 3] * w[t];
        g += p[t * 3 + 1] * w[t];
        b += p[t * 3 + 2] * w[t];
      }
      dst[x * 3] = clamp_round(r);
      dst[x * 3 + 1] = clamp_round(g);
      dst[x * 3 + 2] = clamp_round(b);
    }
  }
}

// Resamples along y: each output row is a weighted sum of whole input rows, which keeps the
// inner loop contiguous so it vectorizes.
void resample_columns(const unsigned char* in, int row_bytes, const ResampleTaps& taps,
                      unsigned char* out, int out_height, std::vector<std::int32_t>& acc) {
  acc.resize(row_bytes);
  for (int y = 0; y < out_height; ++y) {
    std::fill(acc.begin(), acc.end(), 0);
    const std::int32_t* w = &taps.weights[static_cast<std::size_t>(y) * taps.max_taps];
    for (int t = 0; t < taps.count[y]; ++t) {
      const unsigned char* src = in + static_cast<std::size_t>(taps.first[y] + t) * row_bytes;
      const std::int32_t weight = w[t];
      for (int i = 0; i < row_bytes; ++i) acc[i] += src[i] * weight;
    }
    unsigned char* dst = out + static_cast<std::size_t>(y) * row_bytes;
    for (int i = 0; i < row_bytes; ++i) dst[i] = clamp_round(acc[i]);
  }
}

}  // namespace

void resize_rgb(const RgbImage& in, int out_width, int out_height, RgbImage& out,
                std::vector<unsigned char>& scratch) {
  // Taps depend only on the sizes; a loader resizing a stream of same-sized images keeps them.
  thread_local int cached[4] = {-1, -1, -1, -1};
  thread_local ResampleTaps x_taps, y_taps;
  thread_local std::vector<std::int32_t> acc;
  if (cached[0] != in.width || cached[1] != out_width) {
    x_taps = make_taps(in.width, out_width);
    cached[0] = in.width;
    cached[1] = out_width;
  }
  if (cached[2] != in.height || cached[3] != out_height) {
    y_taps = make_taps(in.height, out_height);
    cached[2] = in.height;
    cached[3] = out_height;
  }
  scratch.resize(static_cast<std::size_t>(out_width) * in.height * 3);
  resample_rows(in.pixels.data(), in.width, in.height, x_taps, scratch.data(), out_width);
  out.width = out_width;
  out.height = out_height;
  out.pixels.resize(static_cast<std::size_t>(out_width) * out_height * 3);
  resample_columns(scratch.data(), out_width * 3, y_taps, out.pixels.data(), out_height, acc);
}

std::string turbojpeg_error(void* handle, const std::string& call) {
  return call + ": " + tjGetErrorStr2(static_cast<tjhandle>(handle));
}

void cmyk_to_rgb(const unsigned char* cmyk, std::size_t pixels, unsigned char* rgb) {
  // Pillow's MULDIV255(a, b): a * b / 255 rounded, in integers.
  const auto muldiv255 = [](int a, int b) {
    const int t = a * b + 128;
    return ((t >> 8) + t) >> 8;
  };
  for (std::size_t i = 0; i < pixels; ++i) {
    const unsigned char* in = cmyk + i * 4;
    const int nk = in[3];  // stored inverted: 255 - K
    for (int c = 0; c < 3; ++c) {
      rgb[i * 3 + c] = static_cast<unsigned char>(std::clamp(nk - muldiv255(255 - in[c], nk), 0, 255));
    }
  }
}

bool is_cmyk_colorspace(int colorspace) { return colorspace == TJCS_CMYK || colorspace == TJCS_YCCK; }

JpegDecoder::JpegDecoder() : handle_(tjInitDecompress()) {
  if (handle_ == nullptr) throw RunError(std::string("tjInitDecompress: ") + tjGetErrorStr2(nullptr));
}

JpegDecoder::~JpegDecoder() { tjDestroy(static_cast<tjhandle>(handle_)); }

DecodeResult JpegDecoder::decode(const unsigned char* data, std::size_t size, JpegScale scale,
                                 RgbImage& out, int flags) {
  auto* handle = static_cast<tjhandle>(handle_);
  DecodeResult result;
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle, data, static_cast<unsigned long>(size), &width, &height,
                          &subsampling, &colorspace) != 0) {
    result.message = turbojpeg_error(handle, "tjDecompressHeader3");
    return result;
  }
  out.width = scaled_dimension(width, scale);
  out.height = scaled_dimension(height, scale);
  const std::size_t pixels = static_cast<std::size_t>(out.width) * out.height;
  out.pixels.resize(pixels * 3);
  // TurboJPEG converts CMYK to nothing but CMYK ("Unsupported color conversion request").
  const bool cmyk = is_cmyk_colorspace(colorspace);
  if (cmyk) cmyk_.resize(pixels * 4);
  if (tjDecompress2(handle, data, static_cast<unsigned long>(size), cmyk ? cmyk_.data() : out.pixels.data(),
                    out.width, 0, out.height, cmyk ? TJPF_CMYK : TJPF_RGB, flags) != 0) {
    result.warning = tjGetErrorCode(handle) == TJERR_WARNING;
    result.message = turbojpeg_error(handle, "tjDecompress2");
    return result;
  }
  if (cmyk) cmyk_to_rgb(cmyk_.data(), pixels, out.pixels.data());
  result.ok = true;
  return result;
}

double mean_abs_error(const RgbImage& a, const RgbImage& b) {
  if (a.width != b.width || a.height != b.height || a.pixels.size() != b.pixels.size() ||
      a.pixels.empty()) {
    return -1.0;
  }
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) {
    total += static_cast<std::uint64_t>(std::abs(int(a.pixels[i]) - int(b.pixels[i])));
  }
  return static_cast<double>(total) / static_cast<double>(a.pixels.size());
}

namespace {

std::string pixel_place(const RgbImage& image, std::size_t byte) {
  const std::size_t pixel = byte / 3;
  const auto width = static_cast<std::size_t>(image.width > 0 ? image.width : 1);
  static const char* const kChannels[] = {"R", "G", "B"};
  return "pixel (" + std::to_string(pixel % width) + ", " + std::to_string(pixel / width) + ") channel " +
         kChannels[byte % 3];
}

std::string size_text(const RgbImage& image) { return std::to_string(image.width) + "x" + std::to_string(image.height); }

}  // namespace

std::string first_pixel_difference(const RgbImage& got, const RgbImage& reference) {
  if (got.width != reference.width || got.height != reference.height || got.pixels.size() != reference.pixels.size()) {
    return "the output is " + size_text(got) + ", the reference " + size_text(reference);
  }
  std::size_t first = got.pixels.size();
  std::size_t differing = 0;
  for (std::size_t i = 0; i < got.pixels.size(); ++i) {
    if (got.pixels[i] == reference.pixels[i]) continue;
    if (differing++ == 0) first = i;
  }
  if (differing == 0) return "";
  return pixel_place(got, first) + " is " + std::to_string(got.pixels[first]) + ", the reference's " +
         std::to_string(reference.pixels[first]) + "; " + std::to_string(differing) +
         (differing == 1 ? " byte differs" : " bytes differ");
}

std::string largest_pixel_difference(const RgbImage& a, const RgbImage& b) {
  if (a.width != b.width || a.height != b.height || a.pixels.size() != b.pixels.size()) return "";
  std::size_t worst = 0;
  int largest = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) {
    const int difference = std::abs(int(a.pixels[i]) - int(b.pixels[i]));
    if (difference > largest) {
      largest = difference;
      worst = i;
    }
  }
  if (largest == 0) return "";
  return "largest difference " + std::to_string(largest) + " levels at " + pixel_place(a, worst);
}

}  // namespace pipecheck
