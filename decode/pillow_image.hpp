// An image as Pillow 9 stores it, and the operations a torchvision loader applies to one: what
// the loader's path costs depends on this storage, not only on the pixels. Pillow keeps an RGB
// or CMYK pixel in four bytes (RGB as R, G, B, 255) and a grayscale one in one, rows in blocks of
// at most 16 MiB from malloc (calloc for a decode's target), and every operation (convert, crop,
// resize, transpose) makes a new image. Timing the transform on packed three-byte rows had put
// the budget 1.5x above a real DataLoader; this replays the same passes over the same bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "decode/jpeg_decoder.hpp"

namespace pipecheck {

enum class PillowMode { L, RGB, CMYK };  // CMYK holds ink values (Pillow's "CMYK;I" read inverts)

// A region of an image, in its pixels (Image.crop's box as left, top, width, height).
struct CropBox {
  int left = 0;
  int top = 0;
  int width = 0;
  int height = 0;
};

class PillowImage {
 public:
  PillowImage() = default;
  // ImagingNew (zeroed: calloc) or ImagingNewDirty (malloc), in Pillow's blocks.
  PillowImage(PillowMode mode, int width, int height, bool zeroed = false);

  PillowMode mode() const { return mode_; }
  int width() const { return width_; }
  int height() const { return height_; }
  int pixel_size() const { return mode_ == PillowMode::L ? 1 : 4; }
  std::size_t line_size() const { return static_cast<std::size_t>(width_) * pixel_size(); }
  unsigned char* row(int y) { return rows_[static_cast<std::size_t>(y)]; }
  const unsigned char* row(int y) const { return rows_[static_cast<std::size_t>(y)]; }
  bool empty() const { return rows_.empty(); }

 private:
  struct Free {
    void operator()(unsigned char* p) const;
  };
  PillowMode mode_ = PillowMode::RGB;
  int width_ = 0;
  int height_ = 0;
  std::vector<std::unique_ptr<unsigned char[], Free>> blocks_;
  std::vector<unsigned char*> rows_;
};

// Sets this process's malloc the way a Python loader's behaves for Pillow's images, measured with
// both on this VM: a small photo's images (under 4 MiB) reuse freed memory (a torchvision worker
// took 47-85 page faults a sample on 300-900 px JPEGs), a large photo's 16 MiB blocks are fresh
// pages every sample (17,968 faults a sample on 3840x2400, 51 ms of the 124 ms a sample cost).
// glibc's defaults in this process gave 335-743 faults a sample on the small ones and 3,664 on
// the large; mmap from 4 MiB up, and no trimming below 64 MiB (glibc's own dynamic ceiling),
// gives 0 and 19,500-19,900. Call before the loader's cases run.
void use_pillow_allocation_pattern();

// Image.frombytes("RGB", ...) of packed RGB8, and tobytes() back (RawEncode: rows packed to three
// bytes into chunks of max(64 KiB, 4 x width), joined, as Image.tobytes does).
PillowImage pillow_from_rgb(const RgbImage& rgb);
RgbImage pillow_to_rgb(const PillowImage& image);

// img.convert("RGB"): a copy for RGB, L expanded, CMYK as Pillow's cmyk2rgb (cmyk_to_rgb).
PillowImage pillow_convert_rgb(const PillowImage& image);
// Image.crop(box) inside the image: rows copied into a new image.
PillowImage pillow_crop(const PillowImage& image, const CropBox& box);
// Image.resize(size, BILINEAR): Pillow's two passes (Resample.c), horizontal over the rows the
// vertical pass reads, each weight in 22 fixed-point bits; a copy when the size is unchanged.
PillowImage pillow_resize_bilinear(const PillowImage& image, int width, int height);
// Image.transpose(FLIP_LEFT_RIGHT).
PillowImage pillow_flip_left_right(const PillowImage& image);

}  // namespace pipecheck
