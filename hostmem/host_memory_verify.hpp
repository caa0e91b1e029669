// The host-memory probe's verifiers: after the timed passes, each operation's last pass must
// have done what it claims, checked element by element and named where it did not. Here,
// apart from the probe, so that a test corrupts one byte and sees it caught and named.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pipecheck {

// The words a read buffer holds: seed + i at word i, so the read pass's sum is known.
void fill_counting_words(std::uint64_t* words, std::size_t count, std::uint64_t seed);
// Sum of seed + i for i in [0, count): what the read pass must find (wrapping, as it adds).
std::uint64_t expected_counting_sum(std::uint64_t seed, std::size_t count);

// "" when the check holds, else what is wrong and where: the first byte or word that differs,
// its offset, what it holds and what it should ("memcpy: byte 4100 of the target is 0x00, the
// source's is 0x5a; 1 byte differs").
std::string verify_memcpy(const unsigned char* target, const unsigned char* source, std::size_t bytes);
// The read pass summed `sum`; the buffer must still count from `seed`. A wrong sum names the
// first word that does not hold its value, or says the words hold and the summing was wrong.
std::string verify_read(const std::uint64_t* words, std::size_t count, std::uint64_t seed, std::uint64_t sum);
// Every byte of the write pass's buffer must hold `value` (not a sample: one stale cache line
// in the middle of a page counts).
std::string verify_fill(const unsigned char* bytes, std::size_t count, unsigned char value);

}  // namespace pipecheck
