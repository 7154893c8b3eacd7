// RapidCheck generator of random control-flow graphs as well-formed Ori
// functions (verifyFunction accepts them): labelled blocks of NOPs ending in
// fall-through, BRA (unconditional or guarded by @P0 / @!P0), BRX R0 through a
// jump table (often with duplicate targets), EXIT or RET (sometimes guarded,
// then falling through). Targets are biased so that both reducible loops
// (forward code with backward branches) and irreducible ones (branches into
// the middle of loops) occur, with self loops, unreachable blocks and
// occasionally long chains. The last block ends in an unguarded BRA, BRX,
// EXIT or RET.
#pragma once

#include <rapidcheck.h>

#include "ir/ir.h"

namespace ori::gen {

struct CfgOptions {
  int maxBlocks = 24;       // typical size, at least 1
  int maxChainBlocks = 400; // size of the occasional long chain
};

rc::Gen<Function> cfgFunction(CfgOptions opts = {});

} // namespace ori::gen
