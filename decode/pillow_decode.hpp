// JPEG decode the way a Pillow loader gets its pixels (PIL/JpegDecode.c): libjpeg's API, one
// scanline per jpeg_read_scanlines call into a row buffer, each row unpacked into a new image.
// Read a row at a time, libjpeg-turbo decodes a 4:2:0 photo about twice as slowly as TurboJPEG's
// whole-image tjDecompress2, so the loader's path is timed this way, not through tjDecompress2.
#pragma once

#include <cstddef>

#include "decode/jpeg_decoder.hpp"
#include "decode/pillow_image.hpp"

namespace pipecheck {

// Decodes into a new image in Pillow's storage (as Image.open().load() allocates it): mode RGB,
// L for grayscale, CMYK (ink values) for CMYK and YCCK; convert("RGB") is the loader's next
// step (pillow_convert_rgb). `scale` < 1 is Image.draft()'s DCT
// scaling. `flags` TJFLAG_FASTDCT / TJFLAG_FASTUPSAMPLE as --decode fast sets them. A libjpeg
// warning (damaged data) fails the decode, as TurboJPEG's path does.
DecodeResult pillow_decode(const unsigned char* data, std::size_t size, JpegScale scale, PillowImage& out, int flags = 0);

}  // namespace pipecheck
