// The host-memory probe's verifiers: one byte or word corrupted after a correct pass is caught,
// and the message names its offset and both values.
#include "hostmem/host_memory_verify.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace pipecheck {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(HostMemoryVerify, MemcpyCatchesAndNamesOneFlippedByte) {
  std::vector<unsigned char> source(1 << 20), target;
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 7 + 3);
  target = source;
  EXPECT_EQ(verify_memcpy(target.data(), source.data(), source.size()), "");
  target[600'001] ^= 0x10;
  const std::string wrong = verify_memcpy(target.data(), source.data(), source.size());
  EXPECT_TRUE(contains(wrong, "byte 600001 of the target")) << wrong;
  EXPECT_TRUE(contains(wrong, "1 byte differs")) << wrong;
}

TEST(HostMemoryVerify, ReadCatchesAndNamesOneWrongWord) {
  std::vector<std::uint64_t> words(1 << 16);
  const std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
  fill_counting_words(words.data(), words.size(), seed);
  std::uint64_t sum = 0;
  for (auto w : words) sum += w;
  EXPECT_EQ(sum, expected_counting_sum(seed, words.size()));
  EXPECT_EQ(verify_read(words.data(), words.size(), seed, sum), "");
  // The memory changed under the read: its sum is off, and the word is named.
  reinterpret_cast<unsigned char*>(words.data())[8 * 4321 + 5] ^= 0x01;
  std::uint64_t corrupted_sum = 0;
  for (auto w : words) corrupted_sum += w;
  const std::string wrong = verify_read(words.data(), words.size(), seed, corrupted_sum);
  EXPECT_TRUE(contains(wrong, "word 4321 (byte 34568)")) << wrong;
  // The words hold but the pass added wrong (a flipped bit in a register): said as such.
  reinterpret_cast<unsigned char*>(words.data())[8 * 4321 + 5] ^= 0x01;
  const std::string bad_sum = verify_read(words.data(), words.size(), seed, sum + 1);
  EXPECT_TRUE(contains(bad_sum, "every word holds its value, so the summing itself was wrong")) << bad_sum;
}

// Every byte, not a sample per page: a byte in the middle of a page is caught too.
TEST(HostMemoryVerify, WriteCatchesAndNamesOneByteAnywhere) {
  std::vector<unsigned char> bytes(3 * 4096 + 5, 0xa7);
  EXPECT_EQ(verify_fill(bytes.data(), bytes.size(), 0xa7), "");
  for (std::size_t at : {std::size_t{0}, std::size_t{4096 + 1234}, bytes.size() - 1}) {
    bytes[at] = 0xa6;
    const std::string wrong = verify_fill(bytes.data(), bytes.size(), 0xa7);
    EXPECT_TRUE(contains(wrong, "write: byte " + std::to_string(at) + " is 0xa6, the fill was 0xa7; 1 byte differs"))
        << wrong;
    bytes[at] = 0xa7;
  }
}

}  // namespace
}  // namespace pipecheck
