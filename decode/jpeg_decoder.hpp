// CPU JPEG decode as a data loader does it: one TurboJPEG handle and output buffer per thread,
// full decode to RGB8, DCT-domain scaled decode, and decode + resize to the training size.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pipecheck {

struct JpegScale {
  int num = 1;
  int denom = 1;
};

// The size TurboJPEG produces for `dimension` at `scale` (TJSCALED: rounds up).
int scaled_dimension(int dimension, JpegScale scale);

// The smallest DCT scaling factor libjpeg-turbo offers (<= 1) whose output is still at least
// target_width x target_height, as DALI and PIL's draft mode pick it; 1/1 when none is smaller.
JpegScale pick_dct_scale(int width, int height, int target_width, int target_height);

// An RGB8 image, rows packed (stride = 3 * width).
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<unsigned char> pixels;
};

// Separable antialiased bilinear resize of RGB8 (a triangle filter widened by the scale factor
// when shrinking, as PIL's BILINEAR does, so a 3x shrink averages rather than aliases), with
// 14-bit fixed-point weights that sum exactly to one: a constant image stays constant.
// Stretches to the exact target size (no letterbox). Reuses `out` and `scratch` storage.
void resize_rgb(const RgbImage& in, int out_width, int out_height, RgbImage& out,
                std::vector<unsigned char>& scratch);

struct DecodeResult {
  bool ok = false;       // pixels were produced and no warning was raised
  bool warning = false;  // TJERR_WARNING: data was damaged but decoding went on
  std::string message;   // the library's own message when !ok
};

// CMYK JPEGs (Photoshop's, some of ImageNet's) store inverted ink values under an Adobe
// marker; TurboJPEG hands the stored values back as they are (TJPF_CMYK). This turns them into
// RGB8 as Pillow does (it reads every CMYK JPEG as "CMYK;I", then convert("RGB")): with
// c = 255 - stored, nk = stored black, each channel is nk - c * nk / 255, rounded as Pillow's
// MULDIV255. `pixels` CMYK quadruples in, as many RGB triples out.
void cmyk_to_rgb(const unsigned char* cmyk, std::size_t pixels, unsigned char* rgb);

// True for the colour spaces that decode through CMYK (TJCS_CMYK, TJCS_YCCK).
bool is_cmyk_colorspace(int colorspace);

// One TurboJPEG decompressor; not thread-safe, so one per thread.
class JpegDecoder {
 public:
  JpegDecoder();  // throws RunError when tjInitDecompress fails
  ~JpegDecoder();
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;

  // Decodes to RGB8 at `scale` into `out` (resized only when the size changes, so reuse
  // costs no allocation). `flags` are TJFLAG_* (e.g. TJFLAG_FASTDCT to match tjbench -fastdct).
  // CMYK and YCCK JPEGs decode to CMYK first, then to RGB (cmyk_to_rgb), as a loader does.
  DecodeResult decode(const unsigned char* data, std::size_t size, JpegScale scale, RgbImage& out,
                      int flags = 0);

 private:
  void* handle_;
  std::vector<unsigned char> cmyk_;  // CMYK images' decoded pixels before conversion
};

// "tjDecompress2: Premature end of JPEG file": the call and TurboJPEG's own message.
std::string turbojpeg_error(void* handle, const std::string& call);

// Mean absolute difference per channel value between two RGB8 images of the same size;
// a negative value when their sizes differ.
double mean_abs_error(const RgbImage& a, const RgbImage& b);

// Byte-exact comparison of two decodes of the same bytes by the same decoder and flags (which
// TurboJPEG makes deterministic): "" when equal, else the first differing pixel and channel
// with both values and how many bytes differ ("pixel (12, 7) channel G is 17, the reference's
// 200; 1 byte differs"), or the two sizes.
std::string first_pixel_difference(const RgbImage& got, const RgbImage& reference);
// The pixel where two decodes differ most, for a lossy comparison's message ("largest difference
// 41 levels at pixel (3, 9) channel R"); "" when they are equal or of different sizes.
std::string largest_pixel_difference(const RgbImage& a, const RgbImage& b);

}  // namespace pipecheck
