// The batch hand-over between a worker process and the training process: batches arrive in order
// with every sample's stamps, the worker's CPU time comes back, and one changed byte is caught.
#include "decode/batch_handover.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

TEST(BatchHandover, BatchesArriveWholeAndInOrder) {
  HandoverOptions options;
  options.sample_bytes = 3 * 16 * 16 * 4;
  options.batch = 8;
  BatchHandover handover(options);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(handover.receive(), "") << "batch " << i;
  const auto totals = handover.stop();
  EXPECT_GE(totals.batches, 20);  // and up to prefetch ahead
  EXPECT_LE(totals.batches, 22);
  EXPECT_GT(totals.cpu_seconds, 0);
}

// The worker changes one byte of batch 2 (a stamp of its middle sample): that batch, and only
// that one, is named.
TEST(BatchHandover, OneChangedByteIsCaught) {
  HandoverOptions options;
  options.sample_bytes = 1024;
  options.batch = 32;
  options.corrupt_batch = 2;
  BatchHandover handover(options);
  EXPECT_EQ(handover.receive(), "");
  EXPECT_EQ(handover.receive(), "");
  const std::string wrong = handover.receive();
  EXPECT_EQ(wrong.rfind("batch 2 sample 16: not the sample sent there", 0), 0u) << wrong;
  EXPECT_EQ(handover.receive(), "");
  handover.stop();
}

TEST(BatchHandover, RefusesASampleTooSmallToStamp) {
  HandoverOptions options;
  options.sample_bytes = 8;
  EXPECT_THROW(BatchHandover{options}, RunError);
}

}  // namespace
}  // namespace pipecheck
