// Whether NVIDIA's nvJPEG is loadable at run time (dlopen), for the GPU decode case. GPU decode
// itself is not implemented yet: the case says so rather than guessing at an API untested here.
#pragma once

#include <string>
#include <vector>

namespace pipecheck {

struct NvjpegPresence {
  bool found = false;
  std::string library;  // the soname that loaded, e.g. "libnvjpeg.so.12"
  std::string reason;   // why not found, or what is missing
};

// The sonames tried, newest first.
const std::vector<std::string>& nvjpeg_sonames();

// dlopens each soname in turn and checks for nvjpegCreateSimple; unloads it again.
NvjpegPresence find_nvjpeg(const std::vector<std::string>& sonames = nvjpeg_sonames());

// What the GPU decode case reports: "skipped: no nvJPEG (...)" or
// "skipped: nvJPEG found (libnvjpeg.so.12) but GPU decode is not implemented yet".
std::string nvjpeg_case_status(const NvjpegPresence& presence);

}  // namespace pipecheck
