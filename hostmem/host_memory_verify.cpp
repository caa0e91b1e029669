// Element-by-element checks of the host-memory probe's last pass, naming the first difference.
#include "hostmem/host_memory_verify.hpp"

#include <cstdio>
#include <cstring>

namespace pipecheck {

namespace {

std::string byte_text(unsigned char value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", value);
  return text;
}

std::string count_text(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

void fill_counting_words(std::uint64_t* words, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = 0; i < count; ++i) words[i] = seed + i;
}

std::uint64_t expected_counting_sum(std::uint64_t seed, std::size_t count) {
  const std::uint64_t n = count;
  const std::uint64_t triangle = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
  return seed * n + triangle;
}

std::string verify_memcpy(const unsigned char* target, const unsigned char* source, std::size_t bytes) {
  if (std::memcmp(target, source, bytes) == 0) return "";
  // The slow path, only on failure: find and count what differs.
  std::size_t first = bytes;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < bytes; ++i) {
    if (target[i] == source[i]) continue;
    if (differing++ == 0) first = i;
  }
  return "memcpy: byte " + std::to_string(first) + " of the target is " + byte_text(target[first]) +
         ", the source's is " + byte_text(source[first]) + "; " + count_text(differing, "byte differs", "bytes differ");
}

std::string verify_read(const std::uint64_t* words, std::size_t count, std::uint64_t seed, std::uint64_t sum) {
  const std::uint64_t expected = expected_counting_sum(seed, count);
  if (sum == expected) return "";
  std::string text = "read: the pass summed " + std::to_string(sum) + ", expected " + std::to_string(expected);
  for (std::size_t i = 0; i < count; ++i) {
    if (words[i] == seed + i) continue;
    return text + "; word " + std::to_string(i) + " (byte " + std::to_string(8 * i) + ") holds " +
           std::to_string(words[i]) + ", expected " + std::to_string(seed + i);
  }
  return text + "; every word holds its value, so the summing itself was wrong";
}

std::string verify_fill(const unsigned char* bytes, std::size_t count, unsigned char value) {
  std::uint64_t pattern = 0;
  std::memset(&pattern, value, sizeof pattern);
  std::size_t i = 0;
  // A word at a time while all is well; the first odd word is searched byte by byte below.
  for (; i + 8 <= count; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + i, 8);
    if (word != pattern) break;
  }
  std::size_t first = count;
  std::size_t differing = 0;
  for (; i < count; ++i) {
    if (bytes[i] == value) continue;
    if (differing++ == 0) first = i;
  }
  if (differing == 0) return "";
  return "write: byte " + std::to_string(first) + " is " + byte_text(bytes[first]) + ", the fill was " +
         byte_text(value) + "; " + count_text(differing, "byte differs", "bytes differ");
}

}  // namespace pipecheck
