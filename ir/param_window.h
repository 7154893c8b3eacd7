// Where a kernel's parameters are seen through generic addresses (PTX cvta.param, ISA 9.0
// 9.7.9.19). ptxas 13.0 lowers `cvta.param.u64 d, p` to an LDC.64 of c[0x0][0x198], the
// generic base of the parameters, plus p's offset among them; the PTX lowering does the same
// and the interpreter writes its parameter window's base at that offset of constant bank 0
// (docs/interpreter.md, "Memory").
#pragma once

#include <cstdint>

namespace ori {

inline constexpr uint32_t kParamWindowPointer = 0x198;

} // namespace ori
