// Pillow's way through libjpeg: a row at a time (decode/pillow_decode.hpp says why it matters).
#include "decode/pillow_decode.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <turbojpeg.h>

namespace pipecheck {

namespace {

// libjpeg reports errors by calling error_exit, which must not return: back to the setjmp.
struct ErrorManager {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  int warnings = 0;
  char message[JMSG_LENGTH_MAX] = {};
};

void error_exit(j_common_ptr info) {
  auto* manager = reinterpret_cast<ErrorManager*>(info->err);
  (*info->err->format_message)(info, manager->message);
  std::longjmp(manager->jump, 1);
}

void emit_message(j_common_ptr info, int level) {
  auto* manager = reinterpret_cast<ErrorManager*>(info->err);
  if (level < 0 && manager->warnings++ == 0) (*info->err->format_message)(info, manager->message);
}

// Unpack.c: "RGBX" (libjpeg-turbo's JCS_EXT_RGBX, which Pillow asks for in place of RGB) and
// "L" as they are, "CMYK;I" inverted.
void unpack_row(const unsigned char* in, int width, PillowMode mode, unsigned char* out) {
  if (mode == PillowMode::L) {
    std::memcpy(out, in, static_cast<std::size_t>(width));
  } else if (mode == PillowMode::RGB) {
    std::memcpy(out, in, static_cast<std::size_t>(width) * 4);
  } else {
    for (int x = 0; x < width * 4; ++x) out[x] = static_cast<unsigned char>(255 - in[x]);
  }
}

}  // namespace

DecodeResult pillow_decode(const unsigned char* data, std::size_t size, JpegScale scale, PillowImage& out, int flags) {
  jpeg_decompress_struct cinfo{};
  ErrorManager errors;
  cinfo.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = error_exit;
  errors.base.emit_message = emit_message;
  // Not a local: a local changed between setjmp and longjmp has no defined value after it.
  thread_local std::vector<unsigned char> row;
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    return {false, false, std::string("libjpeg: ") + errors.message};
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  const PillowMode mode = cmyk ? PillowMode::CMYK : cinfo.num_components == 1 ? PillowMode::L : PillowMode::RGB;
  cinfo.out_color_space = mode == PillowMode::CMYK ? JCS_CMYK : mode == PillowMode::L ? JCS_GRAYSCALE : JCS_EXT_RGBX;
  cinfo.scale_num = static_cast<unsigned>(scale.num);
  cinfo.scale_denom = static_cast<unsigned>(scale.denom);
  if (flags & TJFLAG_FASTDCT) cinfo.dct_method = JDCT_IFAST;
  if (flags & TJFLAG_FASTUPSAMPLE) cinfo.do_fancy_upsampling = FALSE;
  jpeg_start_decompress(&cinfo);
  const int width = static_cast<int>(cinfo.output_width), height = static_cast<int>(cinfo.output_height);
  const int components = cinfo.output_components;
  // ImageFile.load's target: Image.core.new, zeroed; then each row unpacked into it.
  out = PillowImage(mode, width, height, true);
  row.resize(static_cast<std::size_t>(width) * components);
  while (cinfo.output_scanline < cinfo.output_height) {
    const int y = static_cast<int>(cinfo.output_scanline);
    JSAMPROW rows[1] = {row.data()};
    jpeg_read_scanlines(&cinfo, rows, 1);  // one row a call, as PIL/JpegDecode.c reads
    unpack_row(row.data(), width, mode, out.row(y));
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (errors.warnings > 0) return {false, true, std::string("libjpeg warning: ") + errors.message};
  return {true, false, ""};
}

}  // namespace pipecheck
