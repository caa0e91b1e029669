// Pillow's image storage and the loader's operations on it (decode/pillow_image.hpp says why).
// The arithmetic follows libImaging (Storage.c, Convert.c, Crop.c, Resample.c, Geometry.c of
// Pillow 9.4, Debian 12's python3-pil); the tests hold the results to Pillow's own output.
#include "decode/pillow_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include <malloc.h>

namespace pipecheck {

namespace {

constexpr std::size_t kBlockSize = 16u << 20;  // Pillow's default arena block: 16 MiB
constexpr int kPrecisionBits = 32 - 8 - 2;     // Resample.c: 8 bits of result, 2 for overshoot

}  // namespace

void use_pillow_allocation_pattern() {
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

void PillowImage::Free::operator()(unsigned char* p) const { std::free(p); }

PillowImage::PillowImage(PillowMode mode, int width, int height, bool zeroed)
    : mode_(mode), width_(width), height_(height) {
  // Storage.c ImagingAllocateArray: as many whole lines as fit in a block, one malloc a block.
  const std::size_t line = std::max<std::size_t>(1, line_size());
  const std::size_t lines_per_block = std::max<std::size_t>(1, kBlockSize / line);
  rows_.resize(static_cast<std::size_t>(height));
  for (std::size_t y = 0; y < rows_.size(); y += lines_per_block) {
    const std::size_t lines = std::min(lines_per_block, rows_.size() - y);
    void* memory = zeroed ? std::calloc(lines, line) : std::malloc(lines * line);
    if (memory == nullptr) throw std::bad_alloc();
    blocks_.emplace_back(static_cast<unsigned char*>(memory));
    for (std::size_t i = 0; i < lines; ++i) rows_[y + i] = blocks_.back().get() + i * line;
  }
}

PillowImage pillow_from_rgb(const RgbImage& rgb) {
  PillowImage image(PillowMode::RGB, rgb.width, rgb.height);
  for (int y = 0; y < rgb.height; ++y) {
    const unsigned char* in = &rgb.pixels[static_cast<std::size_t>(y) * rgb.width * 3];
    unsigned char* out = image.row(y);
    for (int x = 0; x < rgb.width; ++x) {
      out[x * 4] = in[x * 3];
      out[x * 4 + 1] = in[x * 3 + 1];
      out[x * 4 + 2] = in[x * 3 + 2];
      out[x * 4 + 3] = 255;
    }
  }
  return image;
}

RgbImage pillow_to_rgb(const PillowImage& image) {
  // RawEncode packs whole lines into each chunk of the encoder's buffer; tobytes joins them.
  const std::size_t packed_line = static_cast<std::size_t>(image.width()) * 3;
  const std::size_t chunk = std::max<std::size_t>(65536, static_cast<std::size_t>(image.width()) * 4);
  const std::size_t lines_per_chunk = std::max<std::size_t>(1, chunk / std::max<std::size_t>(1, packed_line));
  std::vector<std::vector<unsigned char>> chunks;
  for (int y = 0; y < image.height(); y += static_cast<int>(lines_per_chunk)) {
    const int lines = std::min(static_cast<int>(lines_per_chunk), image.height() - y);
    std::vector<unsigned char>& out = chunks.emplace_back(packed_line * lines);
    for (int i = 0; i < lines; ++i) {
      const unsigned char* in = image.row(y + i);
      unsigned char* dst = out.data() + packed_line * i;
      if (image.mode() == PillowMode::L) {
        for (int x = 0; x < image.width(); ++x) dst[x * 3] = dst[x * 3 + 1] = dst[x * 3 + 2] = in[x];
      } else {
        for (int x = 0; x < image.width(); ++x) {
          dst[x * 3] = in[x * 4];
          dst[x * 3 + 1] = in[x * 4 + 1];
          dst[x * 3 + 2] = in[x * 4 + 2];
        }
      }
    }
  }
  RgbImage rgb;
  rgb.width = image.width();
  rgb.height = image.height();
  rgb.pixels.reserve(packed_line * image.height());
  for (const auto& c : chunks) rgb.pixels.insert(rgb.pixels.end(), c.begin(), c.end());
  return rgb;
}

PillowImage pillow_convert_rgb(const PillowImage& image) {
  PillowImage out(PillowMode::RGB, image.width(), image.height());
  for (int y = 0; y < image.height(); ++y) {
    const unsigned char* in = image.row(y);
    unsigned char* dst = out.row(y);
    if (image.mode() == PillowMode::RGB) {
      std::memcpy(dst, in, image.line_size());  // ImagingCopy
    } else if (image.mode() == PillowMode::L) {
      for (int x = 0; x < image.width(); ++x) {
        dst[x * 4] = dst[x * 4 + 1] = dst[x * 4 + 2] = in[x];
        dst[x * 4 + 3] = 255;
      }
    } else {
      // cmyk_to_rgb takes the stored (inverted) values; this image holds ink, as Pillow does.
      for (int x = 0; x < image.width(); ++x) {
        const unsigned char stored[4] = {static_cast<unsigned char>(255 - in[x * 4]), static_cast<unsigned char>(255 - in[x * 4 + 1]),
                                         static_cast<unsigned char>(255 - in[x * 4 + 2]), static_cast<unsigned char>(255 - in[x * 4 + 3])};
        cmyk_to_rgb(stored, 1, dst + x * 4);
        dst[x * 4 + 3] = 255;
      }
    }
  }
  return out;
}

PillowImage pillow_crop(const PillowImage& image, const CropBox& box) {
  PillowImage out(image.mode(), box.width, box.height);
  const std::size_t size = static_cast<std::size_t>(image.pixel_size());
  for (int y = 0; y < box.height; ++y) {
    std::memcpy(out.row(y), image.row(box.top + y) + box.left * size, out.line_size());
  }
  return out;
}

PillowImage pillow_flip_left_right(const PillowImage& image) {
  PillowImage out(image.mode(), image.width(), image.height());
  const int size = image.pixel_size(), last = image.width() - 1;
  for (int y = 0; y < image.height(); ++y) {
    const unsigned char* in = image.row(y);
    unsigned char* dst = out.row(y);
    for (int x = 0; x <= last; ++x) std::memcpy(dst + (last - x) * size, in + x * size, static_cast<std::size_t>(size));
  }
  return out;
}

namespace {

// Resample.c precompute_coeffs for the bilinear filter (support 1), then normalize_coeffs_8bpc.
struct Coefficients {
  int taps = 0;                       // per output pixel
  std::vector<int> first, count;      // the input span each output pixel reads
  std::vector<std::int32_t> weights;  // taps per output pixel, 22 fractional bits
};

Coefficients bilinear_coefficients(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filter_scale = std::max(1.0, scale);
  const double support = filter_scale;  // the triangle's support 1, widened when shrinking
  Coefficients c;
  c.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(static_cast<std::size_t>(out_size));
  c.count.resize(static_cast<std::size_t>(out_size));
  c.weights.assign(static_cast<std::size_t>(out_size) * c.taps, 0);
  std::vector<double> k(static_cast<std::size_t>(c.taps));
  const double inverse_scale = 1.0 / filter_scale;  // multiplied, as Pillow does: same rounding
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const int lo = std::max(0, static_cast<int>(center - support + 0.5));
    const int n = std::min(in_size, static_cast<int>(center + support + 0.5)) - lo;
    double sum = 0;
    for (int x = 0; x < n; ++x) {
      const double d = std::fabs((x + lo - center + 0.5) * inverse_scale);
      k[static_cast<std::size_t>(x)] = d < 1.0 ? 1.0 - d : 0.0;
      sum += k[static_cast<std::size_t>(x)];
    }
    for (int x = 0; x < n; ++x) {
      const double w = sum != 0.0 ? k[static_cast<std::size_t>(x)] / sum : k[static_cast<std::size_t>(x)];
      c.weights[static_cast<std::size_t>(xx) * c.taps + x] =
          static_cast<std::int32_t>(w < 0 ? -0.5 + w * (1 << kPrecisionBits) : 0.5 + w * (1 << kPrecisionBits));
    }
    c.first[static_cast<std::size_t>(xx)] = lo;
    c.count[static_cast<std::size_t>(xx)] = n;
  }
  return c;
}

// clip8 of a sum with 22 fractional bits: Resample.c's lookup table, as arithmetic.
inline unsigned char clip8(int sum) { return static_cast<unsigned char>(std::clamp(sum >> kPrecisionBits, 0, 255)); }

// Pillow computes three bands of an RGB pixel (the fourth byte left 0) and four of CMYK; one
// loop per pixel layout, as Resample.c has, so the compiler sees constant strides.
template <int Bands, int Size>
void resample_horizontal(const PillowImage& in, int row_offset, const Coefficients& c, PillowImage& out) {
  for (int yy = 0; yy < out.height(); ++yy) {
    const unsigned char* src = in.row(yy + row_offset);
    unsigned char* dst = out.row(yy);
    for (int xx = 0; xx < out.width(); ++xx) {
      const std::int32_t* k = &c.weights[static_cast<std::size_t>(xx) * c.taps];
      const unsigned char* p = src + c.first[static_cast<std::size_t>(xx)] * Size;
      const int n = c.count[static_cast<std::size_t>(xx)];
      int s[Bands];
      for (int b = 0; b < Bands; ++b) s[b] = 1 << (kPrecisionBits - 1);
      for (int x = 0; x < n; ++x) {
        for (int b = 0; b < Bands; ++b) s[b] += p[x * Size + b] * k[x];
      }
      for (int b = 0; b < Size; ++b) dst[xx * Size + b] = b < Bands ? clip8(s[b]) : 0;
    }
  }
}

template <int Bands, int Size>
void resample_vertical(const PillowImage& in, const Coefficients& c, int row_offset, PillowImage& out) {
  std::vector<const unsigned char*> rows(static_cast<std::size_t>(c.taps));
  for (int yy = 0; yy < out.height(); ++yy) {
    const std::int32_t* k = &c.weights[static_cast<std::size_t>(yy) * c.taps];
    const int first = c.first[static_cast<std::size_t>(yy)] - row_offset, n = c.count[static_cast<std::size_t>(yy)];
    for (int y = 0; y < n; ++y) rows[static_cast<std::size_t>(y)] = in.row(first + y);
    unsigned char* dst = out.row(yy);
    for (int xx = 0; xx < out.width(); ++xx) {
      int s[Bands];
      for (int b = 0; b < Bands; ++b) s[b] = 1 << (kPrecisionBits - 1);
      for (int y = 0; y < n; ++y) {
        const unsigned char* p = rows[static_cast<std::size_t>(y)] + xx * Size;
        for (int b = 0; b < Bands; ++b) s[b] += p[b] * k[y];
      }
      for (int b = 0; b < Size; ++b) dst[xx * Size + b] = b < Bands ? clip8(s[b]) : 0;
    }
  }
}

void resample_horizontal(const PillowImage& in, int row_offset, const Coefficients& c, PillowImage& out) {
  if (in.mode() == PillowMode::L) return resample_horizontal<1, 1>(in, row_offset, c, out);
  if (in.mode() == PillowMode::RGB) return resample_horizontal<3, 4>(in, row_offset, c, out);
  resample_horizontal<4, 4>(in, row_offset, c, out);
}

void resample_vertical(const PillowImage& in, const Coefficients& c, int row_offset, PillowImage& out) {
  if (in.mode() == PillowMode::L) return resample_vertical<1, 1>(in, c, row_offset, out);
  if (in.mode() == PillowMode::RGB) return resample_vertical<3, 4>(in, c, row_offset, out);
  resample_vertical<4, 4>(in, c, row_offset, out);
}

}  // namespace

PillowImage pillow_resize_bilinear(const PillowImage& image, int width, int height) {
  if (width == image.width() && height == image.height()) return pillow_crop(image, {0, 0, width, height});
  const Coefficients vertical = bilinear_coefficients(image.height(), height);
  const bool need_horizontal = width != image.width(), need_vertical = height != image.height();
  // The rows the vertical pass reads: the horizontal pass resamples only those.
  const int first_row = vertical.first.front();
  const int last_row = vertical.first.back() + vertical.count.back();
  PillowImage horizontal;
  if (need_horizontal) {
    horizontal = PillowImage(image.mode(), width, last_row - first_row);
    resample_horizontal(image, first_row, bilinear_coefficients(image.width(), width), horizontal);
  }
  if (!need_vertical) return horizontal;
  PillowImage out(image.mode(), width, height);
  resample_vertical(need_horizontal ? horizontal : image, vertical, need_horizontal ? first_row : 0, out);
  return out;
}

}  // namespace pipecheck
