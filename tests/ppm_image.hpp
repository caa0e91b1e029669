// The reference images the decode tests compare with (tests/data/pillow, tests/data/torchvision):
// binary PPMs as Pillow writes them, "P6\nW H\n255\n" then RGB8.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "decode/jpeg_decoder.hpp"

namespace pipecheck::testing {

// A malformed or short file is a test failure naming it, and an empty image.
inline RgbImage read_ppm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  int maxval = 0;
  RgbImage image;
  in >> magic >> image.width >> image.height >> maxval;
  in.get();
  if (magic != "P6" || maxval != 255 || image.width <= 0 || image.height <= 0) {
    ADD_FAILURE() << path << ": not a P6 PPM with maxval 255";
    return {};
  }
  image.pixels.resize(static_cast<std::size_t>(image.width) * image.height * 3);
  in.read(reinterpret_cast<char*>(image.pixels.data()), static_cast<std::streamsize>(image.pixels.size()));
  if (!in) ADD_FAILURE() << path << ": short pixel data";
  return image;
}

}  // namespace pipecheck::testing
