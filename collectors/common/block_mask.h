// Visits the positions of the bytes a scanner acts on, in increasing order, from a bit mask
// per 64-byte block of the text: the block is classified once (SIMD where available) and the
// scanner jumps from one set bit to the next instead of testing every byte. Shared by the CSV
// reader and the Kineto layout scanner, which classify different bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace perfsage::collectors {

class BlockMask {
 public:
  // The first position at or after `pos` whose bit `classify(block)` sets (the mask of bytes
  // [block, block + 64), bit i for byte block + i), or `n` when there is none before `n`.
  template <class Classify>
  size_t next(size_t pos, size_t n, const Classify& classify) {
    while (pos < n) {
      size_t block = pos & ~size_t{63};
      if (block != block_) {
        block_ = block;
        bits_ = classify(block);
      }
      uint64_t m = bits_ & (~uint64_t{0} << (pos - block));
      if (m != 0) return block + static_cast<size_t>(__builtin_ctzll(m));
      pos = block + 64;
    }
    return n;
  }

 private:
  size_t block_ = static_cast<size_t>(-1);
  uint64_t bits_ = 0;
};

}  // namespace perfsage::collectors
