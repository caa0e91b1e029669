// CPU decode through TurboJPEG: output matches the source, DCT-scaled sizes, return codes, and
// the resize (dimensions, constant colour kept, no ringing on a ramp).
#include "decode/jpeg_decoder.hpp"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "decode/jpeg_corpus.hpp"
#include "tests/ppm_image.hpp"

namespace pipecheck {
namespace {

using testing::read_ppm;

// Pillow's own outputs, made by tests/data/pillow/make.py (how, in its header).
const std::string kPillow = std::string(PIPECHECK_TEST_DATA) + "/pillow/";

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int max_abs_difference(const RgbImage& a, const RgbImage& b) {
  int most = 0;
  for (std::size_t i = 0; i < std::min(a.pixels.size(), b.pixels.size()); ++i) {
    most = std::max(most, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
  }
  return most;
}

RgbImage constant_image(int w, int h, unsigned char r, unsigned char g, unsigned char b) {
  RgbImage image{w, h, {}};
  image.pixels.resize(static_cast<std::size_t>(w) * h * 3);
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) {
    image.pixels[i] = r;
    image.pixels[i + 1] = g;
    image.pixels[i + 2] = b;
  }
  return image;
}

TEST(JpegDecoder, FullDecodeMatchesSource) {
  const auto rgb = make_photo_like_rgb(96, 64, 3);
  JpegDecoder decoder;
  RgbImage out;
  for (int subsampling : {TJSAMP_444, TJSAMP_420}) {
    const auto jpeg = encode_jpeg(rgb, 96, 64, 95, subsampling, false);
    const DecodeResult result = decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, out);
    ASSERT_TRUE(result.ok) << result.message;
    EXPECT_EQ(out.width, 96);
    EXPECT_EQ(out.height, 64);
    const double error = mean_abs_error(out, RgbImage{96, 64, rgb});
    EXPECT_GE(error, 0.0);
    EXPECT_LT(error, 6.0) << "subsampling " << subsampling;
  }
}

// The exact check the probe puts on its timed loop's output: a second decode of the same bytes
// is byte-identical, and one byte changed in the output is caught, with its pixel named.
TEST(JpegDecoder, OneChangedOutputByteIsCaughtAndNamed) {
  const auto jpeg = encode_jpeg(make_photo_like_rgb(96, 64, 5), 96, 64, 90, TJSAMP_420, false);
  JpegDecoder first_decoder, second_decoder;
  RgbImage output, reference;
  ASSERT_TRUE(first_decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, output).ok);
  ASSERT_TRUE(second_decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, reference).ok);
  EXPECT_EQ(first_pixel_difference(output, reference), "");
  const std::size_t at = 3 * (96 * 10 + 17) + 1;  // pixel (17, 10), green
  output.pixels[at] ^= 0x01;                       // one level off: no lossy bound would see it
  const std::string wrong = first_pixel_difference(output, reference);
  EXPECT_EQ(wrong, "pixel (17, 10) channel G is " + std::to_string(output.pixels[at]) + ", the reference's " +
                       std::to_string(reference.pixels[at]) + "; 1 byte differs");
  EXPECT_EQ(first_pixel_difference(RgbImage{48, 32, std::vector<unsigned char>(48 * 32 * 3)}, reference),
            "the output is 48x32, the reference 96x64");
}

TEST(JpegDecoder, LargestPixelDifferenceIsNamed) {
  RgbImage a = constant_image(8, 4, 10, 20, 30);
  RgbImage b = a;
  EXPECT_EQ(largest_pixel_difference(a, b), "");
  b.pixels[3 * (8 * 2 + 5) + 2] = 200;  // pixel (5, 2), blue
  b.pixels[0] = 12;
  EXPECT_EQ(largest_pixel_difference(a, b), "largest difference 170 levels at pixel (5, 2) channel B");
}

// Pillow reads every CMYK JPEG as Adobe-inverted ("CMYK;I") and converts with
// nk - c * nk / 255: these are its outputs for CMYK (100,50,200,30), (0,0,0,0), (10,20,30,255)
// and (255,0,0,128), given here as the inverted values a JPEG stores.
TEST(JpegCmyk, ConvertsAsPillowDoes) {
  const unsigned char stored[] = {155, 205, 55, 225, 255, 255, 255, 255, 245, 235, 225, 0, 0, 255, 255, 127};
  unsigned char rgb[12] = {};
  cmyk_to_rgb(stored, 4, rgb);
  const unsigned char pillow[] = {137, 181, 49, 255, 255, 255, 0, 0, 0, 0, 127, 127};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(int(rgb[i]), int(pillow[i])) << "channel value " << i;
}

// A CMYK JPEG as Pillow writes it (Adobe marker, no YCCK transform) decodes, and to the RGB a
// Pillow loader gets from it (Image.open().convert("RGB")): same libjpeg-turbo, same formula.
TEST(JpegCmyk, PillowsCmykJpegDecodesToPillowsRgb) {
  const auto jpeg = read_file(kPillow + "cmyk.jpg");
  ASSERT_FALSE(jpeg.empty());
  JpegHeader header;
  ASSERT_EQ(check_jpeg(jpeg, header), "");
  EXPECT_EQ(header.colorspace, TJCS_CMYK);
  EXPECT_TRUE(header.cmyk());
  JpegDecoder decoder;
  RgbImage out;
  const DecodeResult result = decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, out);
  ASSERT_TRUE(result.ok) << result.message;
  const RgbImage pillow = read_ppm(kPillow + "cmyk-rgb.ppm");
  ASSERT_EQ(out.width, pillow.width);
  ASSERT_EQ(out.height, pillow.height);
  EXPECT_LE(max_abs_difference(out, pillow), 1);
  EXPECT_LT(mean_abs_error(out, pillow), 0.05);
  // DCT-scaled, as the budget's "achievable" case decodes it.
  ASSERT_TRUE(decoder.decode(jpeg.data(), jpeg.size(), {1, 2}, out).ok);
  EXPECT_EQ(out.width, 48);
}

// YCCK (what tjCompress2 makes of CMYK pixels, and Photoshop of most CMYK photos): decoded
// through CMYK to the RGB the conversion gives for the source pixels.
TEST(JpegCmyk, YcckFromTurboJpegDecodes) {
  const int w = 64, h = 48;
  std::vector<unsigned char> cmyk(static_cast<std::size_t>(w) * h * 4);
  const auto rgb = make_photo_like_rgb(w, h, 5);
  for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i) {
    for (int c = 0; c < 3; ++c) cmyk[i * 4 + c] = rgb[i * 3 + c];
    cmyk[i * 4 + 3] = static_cast<unsigned char>(160 + i % 64);
  }
  tjhandle compressor = tjInitCompress();
  ASSERT_NE(compressor, nullptr);
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  ASSERT_EQ(tjCompress2(compressor, cmyk.data(), w, 0, h, TJPF_CMYK, &jpeg, &size, TJSAMP_444, 95, 0), 0)
      << tjGetErrorStr2(compressor);
  const std::vector<unsigned char> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  tjDestroy(compressor);
  JpegHeader header;
  ASSERT_EQ(check_jpeg(bytes, header), "");
  EXPECT_EQ(header.colorspace, TJCS_YCCK);
  JpegDecoder decoder;
  RgbImage out;
  ASSERT_TRUE(decoder.decode(bytes.data(), bytes.size(), {1, 1}, out).ok);
  RgbImage expected{w, h, std::vector<unsigned char>(static_cast<std::size_t>(w) * h * 3)};
  cmyk_to_rgb(cmyk.data(), static_cast<std::size_t>(w) * h, expected.pixels.data());
  const double error = mean_abs_error(out, expected);
  EXPECT_GE(error, 0.0);
  EXPECT_LT(error, 4.0);
}

TEST(JpegDecoder, DctScaledSizesRoundUp) {
  const auto jpeg = encode_jpeg(make_photo_like_rgb(67, 45, 1), 67, 45, 90, TJSAMP_420, false);
  JpegDecoder decoder;
  RgbImage out;
  const struct { JpegScale scale; int w, h; } expected[] = {
      {{1, 1}, 67, 45}, {{1, 2}, 34, 23}, {{1, 4}, 17, 12}, {{1, 8}, 9, 6}};
  for (const auto& e : expected) {
    ASSERT_TRUE(decoder.decode(jpeg.data(), jpeg.size(), e.scale, out).ok);
    EXPECT_EQ(out.width, e.w) << e.scale.denom;
    EXPECT_EQ(out.height, e.h) << e.scale.denom;
    EXPECT_EQ(out.pixels.size(), static_cast<std::size_t>(e.w) * e.h * 3);
    EXPECT_EQ(scaled_dimension(67, e.scale), e.w);
  }
}

TEST(JpegDecoder, PicksSmallestDctScaleStillCoveringTarget) {
  auto same = [](JpegScale a, int num, int denom) { return a.num == num && a.denom == denom; };
  EXPECT_TRUE(same(pick_dct_scale(2000, 1500, 640, 640), 1, 2));
  EXPECT_TRUE(same(pick_dct_scale(3000, 3000, 640, 640), 1, 4));
  EXPECT_TRUE(same(pick_dct_scale(2000, 1500, 100, 100), 1, 8));
  EXPECT_TRUE(same(pick_dct_scale(640, 640, 640, 640), 1, 1));
  EXPECT_TRUE(same(pick_dct_scale(320, 320, 640, 640), 1, 1));  // never upscales
  EXPECT_TRUE(same(pick_dct_scale(1000, 1000, 640, 640), 3, 4));  // 750 >= 640, 5/8 gives 625
}

TEST(JpegDecoder, ReportsFailuresWithLibraryMessage) {
  JpegDecoder decoder;
  RgbImage out;
  const std::vector<unsigned char> junk = {'n', 'o', 'p', 'e', 0, 1, 2, 3};
  DecodeResult result = decoder.decode(junk.data(), junk.size(), {1, 1}, out);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.message.find("tjDecompressHeader3"), std::string::npos) << result.message;

  const auto jpeg = encode_jpeg(make_photo_like_rgb(96, 64, 2), 96, 64, 90, TJSAMP_420, false);
  result = decoder.decode(jpeg.data(), jpeg.size() / 2, {1, 1}, out);  // truncated
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.warning);
  EXPECT_NE(result.message.find("tjDecompress2"), std::string::npos) << result.message;
  // The handle still works after a failure: a loader's worker goes on with the next file.
  EXPECT_TRUE(decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, out).ok);
}

TEST(JpegResize, ConstantColourStaysExactly) {
  RgbImage out;
  std::vector<unsigned char> scratch;
  const RgbImage in = constant_image(101, 77, 12, 200, 77);
  for (auto [w, h] : {std::pair{640, 640}, std::pair{33, 20}, std::pair{1, 1}, std::pair{101, 77}}) {
    resize_rgb(in, w, h, out, scratch);
    ASSERT_EQ(out.width, w);
    ASSERT_EQ(out.height, h);
    ASSERT_EQ(out.pixels.size(), static_cast<std::size_t>(w) * h * 3);
    EXPECT_EQ(mean_abs_error(out, constant_image(w, h, 12, 200, 77)), 0.0) << w << "x" << h;
  }
}

TEST(JpegResize, RampStaysMonotonicAndInRange) {
  RgbImage ramp{200, 10, {}};
  for (int y = 0; y < 10; ++y) {
    for (int x = 0; x < 200; ++x) {
      const auto v = static_cast<unsigned char>(x);
      ramp.pixels.insert(ramp.pixels.end(), {v, v, v});
    }
  }
  RgbImage out;
  std::vector<unsigned char> scratch;
  resize_rgb(ramp, 64, 5, out, scratch);
  for (int x = 1; x < 64; ++x) EXPECT_GE(out.pixels[x * 3], out.pixels[(x - 1) * 3]);
  EXPECT_LT(out.pixels[0], 8);
  EXPECT_GT(out.pixels[63 * 3], 191);
  // The middle output pixel averages the middle of the ramp.
  EXPECT_NEAR(out.pixels[32 * 3], 101, 3);
}

// The probe's resize is the filter Pillow's Image.BILINEAR applies (a triangle widened by the
// shrink factor, horizontal pass then vertical, each rounded to 8 bits): held to Pillow's own
// output, shrinking and enlarging. Only fixed-point rounding may differ (Pillow keeps 22 bits).
TEST(JpegResize, MatchesPillowBilinear) {
  const RgbImage photo = read_ppm(kPillow + "photo.ppm");
  ASSERT_EQ(photo.width, 96);
  std::vector<unsigned char> scratch;
  for (const char* name : {"photo-down.ppm", "photo-up.ppm"}) {
    const RgbImage pillow = read_ppm(kPillow + name);
    RgbImage ours;
    resize_rgb(photo, pillow.width, pillow.height, ours, scratch);
    ASSERT_EQ(ours.pixels.size(), pillow.pixels.size()) << name;
    EXPECT_LE(max_abs_difference(ours, pillow), 1) << name;
    EXPECT_LT(mean_abs_error(ours, pillow), 0.05) << name;
  }
}

TEST(JpegResize, MeanAbsErrorRejectsSizeMismatch) {
  EXPECT_LT(mean_abs_error(constant_image(2, 2, 0, 0, 0), constant_image(2, 3, 0, 0, 0)), 0);
  EXPECT_DOUBLE_EQ(mean_abs_error(constant_image(2, 2, 0, 0, 0), constant_image(2, 2, 3, 3, 3)), 3.0);
}

}  // namespace
}  // namespace pipecheck
