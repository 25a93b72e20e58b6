// The toy transformer the LLM trace-generator tests count by hand: h 64, 4 heads of 16 (4 K/V heads), feedforward
// 256, 32 tokens, 4 blocks, vocab 128, GeLU.
#pragma once

#include "chorus/llm/inputs.hpp"

namespace chorus::testing_support {

inline llm::Application tiny_llm_model() {
  llm::Application m;
  m.hidden = 64;
  m.feedforward = 256;
  m.seq_size = 32;
  m.attn_heads = 4;
  m.attn_size = 16;
  m.kv_heads = 4;
  m.num_blocks = 4;
  m.vocab = 128;
  return m;
}

}  // namespace chorus::testing_support
