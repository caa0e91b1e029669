// Decoding a row at a time as Pillow does gives TurboJPEG's pixels byte for byte (baseline,
// progressive, grayscale, DCT-scaled) and Pillow's own RGB for a CMYK JPEG; damaged data fails.
#include "decode/pillow_decode.hpp"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <fstream>
#include <iterator>

#include "decode/jpeg_corpus.hpp"
#include "decode/pillow_image.hpp"

namespace pipecheck {
namespace {

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Pillow's decode, then the loader's convert("RGB"), packed as tobytes() gives it.
RgbImage decoded_rgb(const std::vector<unsigned char>& jpeg, JpegScale scale) {
  PillowImage image;
  EXPECT_TRUE(pillow_decode(jpeg.data(), jpeg.size(), scale, image).ok);
  return pillow_to_rgb(pillow_convert_rgb(image));
}

TEST(PillowDecode, RowsGiveTurboJpegsPixels) {
  const auto rgb = make_photo_like_rgb(203, 117, 5);
  JpegDecoder decoder;
  for (bool progressive : {false, true}) {
    for (int subsampling : {TJSAMP_420, TJSAMP_444, TJSAMP_GRAY}) {
      const auto jpeg = encode_jpeg(rgb, 203, 117, 88, subsampling, progressive);
      for (JpegScale scale : {JpegScale{1, 1}, JpegScale{1, 2}}) {
        PillowImage stored;
        ASSERT_TRUE(pillow_decode(jpeg.data(), jpeg.size(), scale, stored).ok);
        // Pillow's modes: a grayscale JPEG stays L (one byte a pixel), a colour one is RGB in four.
        EXPECT_EQ(stored.mode(), subsampling == TJSAMP_GRAY ? PillowMode::L : PillowMode::RGB);
        RgbImage turbo;
        const RgbImage ours = decoded_rgb(jpeg, scale);
        ASSERT_TRUE(decoder.decode(jpeg.data(), jpeg.size(), scale, turbo).ok);
        EXPECT_EQ(first_pixel_difference(ours, turbo), "") << "progressive " << progressive << " subsampling " << subsampling
                                                            << " scale 1/" << scale.denom;
      }
    }
  }
}

// Pillow's own convert("RGB") of its CMYK JPEG (tests/data/pillow/make.py), exactly.
TEST(PillowDecode, CmykAsPillowConvertsIt) {
  {
    const auto jpeg = read_bytes(std::string(PIPECHECK_TEST_DATA) + "/pillow/cmyk.jpg");
    PillowImage stored;
    ASSERT_TRUE(pillow_decode(jpeg.data(), jpeg.size(), {1, 1}, stored).ok);
    EXPECT_EQ(stored.mode(), PillowMode::CMYK);
  }
  const auto jpeg = read_bytes(std::string(PIPECHECK_TEST_DATA) + "/pillow/cmyk.jpg");
  RgbImage ours = decoded_rgb(jpeg, {1, 1}), turbo;
  JpegDecoder decoder;
  ASSERT_TRUE(decoder.decode(jpeg.data(), jpeg.size(), {1, 1}, turbo).ok);
  EXPECT_EQ(first_pixel_difference(ours, turbo), "");
  // One changed output byte is seen by the comparison the probe makes.
  ours.pixels[100] ^= 1;
  EXPECT_NE(first_pixel_difference(ours, turbo), "");
}

TEST(PillowDecode, DamagedDataFails) {
  auto jpeg = encode_jpeg(make_photo_like_rgb(64, 48, 2), 64, 48, 90, TJSAMP_420, false);
  jpeg.resize(jpeg.size() / 2);  // truncated: libjpeg warns and pads
  PillowImage out;
  const DecodeResult truncated = pillow_decode(jpeg.data(), jpeg.size(), {1, 1}, out);
  EXPECT_FALSE(truncated.ok);
  EXPECT_TRUE(truncated.warning) << truncated.message;
  const unsigned char garbage[] = {'n', 'o', 't', 'j', 'p', 'e', 'g'};
  const DecodeResult bad = pillow_decode(garbage, sizeof garbage, {1, 1}, out);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.message.rfind("libjpeg: ", 0), 0u) << bad.message;
}

}  // namespace
}  // namespace pipecheck
