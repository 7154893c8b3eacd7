// The opcode model table and the driver that applies operand modifiers and
// the guard (verify/opcode_model.h).
#include <fmt/format.h>

#include "verify/opcode_model.h"

#include "ir/mma.h"

namespace ori::verify {

// ---------------------------------------------------------------- sources

z3::expr ModelContext::raw(size_t i) const { return x.srcs.at(i); }

z3::expr ModelContext::intSrc(size_t i, unsigned bits) const {
  z3::expr v = raw(i);
  if (i < in.srcs.size() && in.srcs[i].neg)
    v = smt.bv(0, 64) - v; // -R: negated mod 2^width
  return Smt::low(v, bits);
}

z3::expr ModelContext::f32Src(size_t i) const {
  z3::expr v = Smt::low(raw(i), 32);
  if (i < in.srcs.size() && in.srcs[i].abs)
    v = v & smt.bv(0x7fffffff, 32);
  if (i < in.srcs.size() && in.srcs[i].neg)
    v = v ^ smt.bv(0x80000000u, 32);
  return v;
}

z3::expr ModelContext::f64Src(size_t i) const {
  z3::expr v = raw(i);
  if (i < in.srcs.size() && in.srcs[i].abs)
    v = v & smt.bv(~(uint64_t(1) << 63), 64);
  if (i < in.srcs.size() && in.srcs[i].neg)
    v = v ^ smt.bv(uint64_t(1) << 63, 64);
  return v;
}

z3::expr ModelContext::predSrc(size_t i) const {
  z3::expr v = raw(i);
  return i < in.srcs.size() && in.srcs[i].neg ? !v : v;
}

// ---------------------------------------------------------------- the table

namespace {

using D = Domain;
const Axis kWidth = {{}, {Mod::W64}};
const Axis kIntTypes = {{}, {Mod::U32}, {Mod::S32}, {Mod::U64}, {Mod::S64}};
const Axis kDivTypes = {{Mod::U32}, {Mod::S32}, {Mod::U64}, {Mod::S64}};
const Axis kIntCmps = {{Mod::LT}, {Mod::EQ}, {Mod::LE}, {Mod::GT}, {Mod::NE}, {Mod::GE}};
const Axis kFloatCmps = {{Mod::F},   {Mod::LT},  {Mod::EQ},   {Mod::LE},  {Mod::GT},  {Mod::NE},
                         {Mod::GE},  {Mod::NUM}, {Mod::NAN_}, {Mod::LTU}, {Mod::EQU}, {Mod::LEU},
                         {Mod::GTU}, {Mod::NEU}, {Mod::GEU},  {Mod::T}};
const Axis kBoolOps = {{}, {Mod::AND}, {Mod::OR}, {Mod::XOR}};
const Axis kRounding = {{}, {Mod::RN}, {Mod::RZ}, {Mod::RM}, {Mod::RP}};
const Axis kFtz = {{}, {Mod::FTZ}};
const Axis kConvTypes = {{},         {Mod::U8},  {Mod::S8},  {Mod::U16}, {Mod::S16},
                         {Mod::U32}, {Mod::S32}, {Mod::U64}, {Mod::S64}};
const Axis kAccess = {{}, {Mod::U8}, {Mod::S8}, {Mod::U16}, {Mod::S16}, {Mod::W64}};
const Axis kRedOps = {{Mod::ADD}, {Mod::MIN},      {Mod::MAX},     {Mod::INC},
                      {Mod::DEC}, {Mod::ATOM_AND}, {Mod::ATOM_OR}, {Mod::ATOM_XOR}};
Axis atomOps() {
  Axis a = kRedOps;
  a.push_back({Mod::EXCH});
  a.push_back({Mod::CAS});
  return a;
}

template <Domain... Ds> std::vector<Domain> fixed(const ModSet &) { return {Ds...}; }
std::vector<Domain> f2fSources(const ModSet &m) {
  return {m.test(Mod::SRC_F64) ? D::F64 : m.test(Mod::SRC_F32) ? D::F32 : D::Half2};
}
std::vector<Domain> byWidth1(const ModSet &m) { return {m.test(Mod::F64) ? D::F64 : D::F32}; }
// A float source by the FType modifier: binary64, a 16-bit format (in Half2's low lane), else
// binary32.
std::vector<Domain> byFType(const ModSet &m) {
  return {m.test(Mod::F64) || m.test(Mod::RCP64H) || m.test(Mod::RSQ64H) ? D::F64
          : m.test(Mod::F16) || m.test(Mod::BF16)                        ? D::Half2
                                                                         : D::F32};
}
std::vector<Domain> f2fpSources(const ModSet &m) {
  if (m.test(Mod::SRC_F32))
    return {D::F32, D::F32};
  return {D::Half2};
}
std::vector<Domain> byWidth2(const ModSet &m) {
  return {m.test(Mod::F64) ? D::F64 : D::F32, m.test(Mod::F64) ? D::F64 : D::F32};
}
const Axis kFloatFormats = {{Mod::F16}, {Mod::BF16}, {Mod::F32}, {Mod::F64}};
const Axis kFloatSources = {{Mod::SRC_F16}, {Mod::SRC_BF16}, {Mod::SRC_F32}, {Mod::SRC_F64}};
const Axis kHalfForms = {{}, {Mod::BF16}};

// An atomic's value sources by its type; .HINT adds the cache policy (an integer) last.
std::vector<Domain> atomSources(const ModSet &m) {
  D value = m.test(Mod::AF32)                ? D::F32
            : m.test(Mod::AF64)              ? D::F64
            : m.inGroup(ModGroup::AtomFType) ? D::Half2
                                             : D::Int;
  std::vector<Domain> out{D::Address, value};
  if (m.test(Mod::CAS))
    out.push_back(value);
  if (m.test(Mod::HINT))
    out.push_back(D::Int);
  return out;
}
std::vector<Domain> loadSources(const ModSet &m) {
  if (m.test(Mod::HINT))
    return {D::Address, D::Int};
  return {D::Address};
}
std::vector<Domain> storeSources(const ModSet &m) {
  if (m.test(Mod::HINT))
    return {D::Address, D::Int, D::Int};
  return {D::Address, D::Int};
}
std::vector<Domain> policySources(const ModSet &m) {
  if (m.test(Mod::RANGE))
    return {D::Int, D::Int, D::Int};
  if (m.test(Mod::CVT))
    return {D::Int};
  return {D::F32};
}
std::vector<Domain> cctlSources(const ModSet &m) {
  if (m.test(Mod::APPLYPRIORITY) || m.test(Mod::DISCARD))
    return {D::Address, D::SmallImm};
  return {D::Address};
}
// The qualifiers (docs/ptx.md, "Memory ordering and cache qualifiers"): a sample of the
// combinations each opcode takes; none may change what a thread reads or writes.
const Axis kLdgQuals = {{},
                        {Mod::VOLATILE},
                        {Mod::RELAXED, Mod::GPU},
                        {Mod::ACQUIRE, Mod::SYS},
                        {Mod::MMIO, Mod::SYS},
                        {Mod::CG},
                        {Mod::CONSTANT, Mod::L1_EL, Mod::L2_256B},
                        {Mod::LU, Mod::HINT, Mod::L2_64B}};
const Axis kLdQuals = {{}, {Mod::VOLATILE}, {Mod::ACQUIRE, Mod::GPU}, {Mod::CV, Mod::HINT}};
const Axis kLdsQuals = {
    {}, {Mod::VOLATILE}, {Mod::RELAXED, Mod::CTA}, {Mod::ACQUIRE, Mod::CLUSTER}};
const Axis kLdlQuals = {{}, {Mod::CS}, {Mod::L1_EF}};
const Axis kStgQuals = {{},
                        {Mod::VOLATILE},
                        {Mod::RELEASE, Mod::CTA},
                        {Mod::MMIO, Mod::SYS},
                        {Mod::CS, Mod::L1_NA},
                        {Mod::HINT, Mod::L1_EL}};
const Axis kStQuals = {{}, {Mod::VOLATILE}, {Mod::RELEASE, Mod::SYS}, {Mod::HINT}};
const Axis kStsQuals = {{}, {Mod::VOLATILE}, {Mod::RELEASE, Mod::CTA}};
const Axis kStlQuals = {{}, {Mod::WB}};
const Axis kAtomInts = {{}, {Mod::S32}, {Mod::W64}, {Mod::S64}};
const Axis kAtomOrders = {{}, {Mod::ACQ_REL, Mod::SYS}};
const Axis kRedOrders = {{}, {Mod::RELEASE, Mod::GPU}};
const Axis kAtomFloats = {{Mod::AF32},  {Mod::AF32, Mod::FTZ}, {Mod::AF64},   {Mod::AF16},
                          {Mod::ABF16}, {Mod::AF16X2},         {Mod::ABF16X2}};
const Axis kScopes = {{Mod::CTA}, {Mod::CLUSTER}, {Mod::GPU}, {Mod::SYS}};

// The sources of an MMA form: every register an Int.
std::vector<Domain> matrixSources(const ModSet &m) {
  size_t n = 0;
  for (Opcode op : {Opcode::HMMA, Opcode::IMMA, Opcode::DMMA, Opcode::BMMA}) {
    const auto form = mmaForm(op, m);
    if (const MmaForm *f = std::get_if<MmaForm>(&form))
      n = f->aRegs + f->bRegs + f->cRegs;
  }
  return std::vector<Domain>(n, D::Int);
}
// The forms of an MMA opcode as one axis (ir/mma.h: mmaForms).
Axis mmaAxis(Opcode op) {
  Axis out;
  for (const ModSet &s : mmaForms(op))
    out.push_back(s.list());
  return out;
}

const std::vector<ModelEntry> kModelTable = {
    {Opcode::MOV, models::mov, {kWidth}, fixed<D::Int>},
    {Opcode::IADD3, models::iadd3, {kWidth}, fixed<D::Int, D::Int, D::Int>},
    {Opcode::SEL, models::sel, {kWidth}, fixed<D::Int, D::Int, D::Pred>},
    {Opcode::IMAD,
     models::imad,
     {{{},
       {Mod::W64},
       {Mod::U32},
       {Mod::S32},
       {Mod::WIDE},
       {Mod::WIDE, Mod::U32},
       {Mod::WIDE, Mod::S32},
       {Mod::HI},
       {Mod::HI, Mod::U32},
       {Mod::HI, Mod::S32}}},
     fixed<D::Int, D::Int, D::Int>},
    {Opcode::LOP3, models::lop3, {{{Mod::LUT}}, kWidth}, fixed<D::Int, D::Int, D::Int, D::Lut>},
    {Opcode::PLOP3,
     models::plop3,
     {{{Mod::LUT}}},
     fixed<D::Pred, D::Pred, D::Pred, D::Lut, D::Lut>},
    {Opcode::SHL, models::shl, {kWidth}, fixed<D::Int, D::Shift>},
    {Opcode::SHR, models::shr, {kIntTypes}, fixed<D::Int, D::Shift>},
    {Opcode::SHF,
     models::shf,
     {{{Mod::L}, {Mod::R}}, {{}, {Mod::HI}}, kIntTypes, {{}, {Mod::W}}},
     fixed<D::Int, D::Shift, D::Int>},
    {Opcode::IMNMX, models::imnmx, {kIntTypes}, fixed<D::Int, D::Int, D::Pred>},
    {Opcode::LEA, models::lea, {kWidth}, fixed<D::Int, D::Int, D::SmallImm>},
    {Opcode::ISETP, models::isetp, {kIntCmps, kIntTypes, kBoolOps}, fixed<D::Int, D::Int, D::Pred>},
    {Opcode::S2R, models::s2r, {{{}}}, fixed<D::Special>},
    {Opcode::SGXT, models::sgxt, {{{}, {Mod::U32}}, kWidth}, fixed<D::Int, D::Shift>},
    {Opcode::PRMT,
     models::prmt,
     {{{}, {Mod::F4E}, {Mod::B4E}, {Mod::RC8}, {Mod::ECL}, {Mod::ECR}, {Mod::RC16}}},
     fixed<D::Int, D::Int, D::Int>},
    {Opcode::POPC, models::popc, {kWidth}, fixed<D::Int>},
    {Opcode::BREV, models::brev, {kWidth}, fixed<D::Int>},
    {Opcode::FLO, models::flo, {kIntTypes, {{}, {Mod::SH}}}, fixed<D::Int>},
    {Opcode::IDIV, models::idivRem, {kDivTypes}, fixed<D::Int, D::Int>},
    {Opcode::IREM, models::idivRem, {kDivTypes}, fixed<D::Int, D::Int>},
    {Opcode::IADDC, models::iaddc, {{{}, {Mod::SUB}}, kWidth}, fixed<D::Int, D::Int, D::Pred>},
    {Opcode::IDP,
     models::idp,
     {{{Mod::A4, Mod::U8},
       {Mod::A4, Mod::S8},
       {Mod::A2, Mod::LO, Mod::U16},
       {Mod::A2, Mod::LO, Mod::S16},
       {Mod::A2, Mod::HI, Mod::U16},
       {Mod::A2, Mod::HI, Mod::S16}},
      {{Mod::IDP_B_U8}, {Mod::IDP_B_S8}}},
     fixed<D::Int, D::Int, D::Int>},
    {Opcode::I2IP,
     models::i2ip,
     {{{Mod::U8}, {Mod::S8}, {Mod::U16}, {Mod::S16}}},
     fixed<D::Int, D::Int, D::Int>},
    {Opcode::BMSK, models::bmsk, {{{}, {Mod::W}}}, fixed<D::Shift, D::Shift>},
    {Opcode::FNS, models::fns, {{{}}}, fixed<D::Int, D::Count, D::Count>},
    {Opcode::FSETP, models::fsetp, {kFloatCmps, kFtz, kBoolOps}, fixed<D::F32, D::F32, D::Pred>},
    {Opcode::DSETP, models::fsetp, {kFloatCmps, kBoolOps}, fixed<D::F64, D::F64, D::Pred>},
    {Opcode::FADD, models::fArith, {kRounding, kFtz, {{}, {Mod::SAT}}}, fixed<D::F32, D::F32>},
    {Opcode::FMUL, models::fArith, {kRounding, kFtz, {{}, {Mod::SAT}}}, fixed<D::F32, D::F32>},
    {Opcode::FFMA,
     models::fArith,
     {kRounding, kFtz, {{}, {Mod::SAT}}},
     fixed<D::F32, D::F32, D::F32>},
    {Opcode::DADD, models::dArith, {kRounding}, fixed<D::F64, D::F64>},
    {Opcode::DMUL, models::dArith, {kRounding}, fixed<D::F64, D::F64>},
    {Opcode::DFMA, models::dArith, {kRounding}, fixed<D::F64, D::F64, D::F64>},
    {Opcode::FMNMX,
     models::fmnmx,
     {kFtz, {{}, {Mod::NANMM}}, {{}, {Mod::XORSIGN}}},
     fixed<D::F32, D::F32, D::Pred>},
    {Opcode::I2F,
     models::i2f,
     {kConvTypes, {{}, {Mod::F32}, {Mod::F64}, {Mod::F16}, {Mod::BF16}}, kRounding},
     fixed<D::Int>},
    {Opcode::F2I,
     models::f2i,
     {kConvTypes,
      {{}, {Mod::FTZ}, {Mod::F64}, {Mod::F16}, {Mod::BF16}},
      {{}, {Mod::TRUNC}, {Mod::FLOOR}, {Mod::CEIL}}},
     byFType},
    {Opcode::VOTE, models::vote, {{{Mod::ALL}, {Mod::ANY}, {Mod::EQ_V}}}, fixed<D::Pred>},
    {Opcode::DMNMX, models::dmnmx, {{{}}}, fixed<D::F64, D::F64, D::Pred>},
    {Opcode::F2F,
     models::f2f,
     {kFloatFormats, kFloatSources, kRounding, kFtz, {{}, {Mod::SAT}}},
     f2fSources},
    // PTX cvt.{rn,rz,rna}{.relu}{.satfinite} to .tf32/.f16/.bf16 from .f32 (a second row of F2F).
    {Opcode::F2F,
     models::f2f,
     {{{Mod::TF32, Mod::SRC_F32},
       {Mod::F16, Mod::SRC_F32},
       {Mod::BF16, Mod::SRC_F32},
       {Mod::F16, Mod::SRC_F64}},
      {{}, {Mod::RZ}, {Mod::RNA}},
      {{}, {Mod::RELU}},
      {{}, {Mod::SATFINITE}}},
     f2fSources},
    {Opcode::FRND,
     models::frnd,
     {{{}, {Mod::FTZ}, {Mod::F64}, {Mod::F16}, {Mod::BF16}},
      {{}, {Mod::TRUNC}, {Mod::FLOOR}, {Mod::CEIL}}},
     byFType},
    {Opcode::MUFU,
     models::mufu,
     {{{Mod::RCP},
       {Mod::RSQ},
       {Mod::SQRT},
       {Mod::EX2},
       {Mod::LG2},
       {Mod::SIN},
       {Mod::COS},
       {Mod::TANH},
       {Mod::EX2, Mod::F16},
       {Mod::EX2, Mod::BF16},
       {Mod::TANH, Mod::F16},
       {Mod::TANH, Mod::BF16},
       {Mod::RCP64H},
       {Mod::RSQ64H}},
      kFtz},
     byFType},
    {Opcode::MUFU,
     models::mufu,
     {{{Mod::RSQ, Mod::F64}}},
     byFType}, // rsqrt.approx.f64: no .FTZ form
    {Opcode::FDIV, models::fdivSqrt, {kRounding, {{}, {Mod::FTZ}, {Mod::F64}}}, byWidth2},
    {Opcode::FSQRT, models::fdivSqrt, {kRounding, {{}, {Mod::FTZ}, {Mod::F64}}}, byWidth1},
    {Opcode::HADD2, models::half2, {kHalfForms, kFtz, {{}, {Mod::SAT}}}, fixed<D::Half2, D::Half2>},
    {Opcode::HMUL2, models::half2, {kHalfForms, kFtz, {{}, {Mod::SAT}}}, fixed<D::Half2, D::Half2>},
    {Opcode::HFMA2,
     models::half2,
     {kHalfForms, kFtz, {{}, {Mod::SAT}, {Mod::RELU}}, {{}, {Mod::OOB}}},
     fixed<D::Half2, D::Half2, D::Half2>},
    {Opcode::HMNMX2,
     models::hmnmx2,
     {kHalfForms, kFtz, {{}, {Mod::NANMM}}, {{}, {Mod::XORSIGN}}},
     fixed<D::Half2, D::Half2, D::Pred>},
    // The comparison and the bool operation are independent steps: every comparison with every
    // format and .FTZ, and every bool operation with three comparisons that differ on NaN.
    {Opcode::HSETP2,
     models::hsetp2,
     {kFloatCmps, kHalfForms, kFtz},
     fixed<D::Half2, D::Half2, D::Pred>},
    {Opcode::HSETP2,
     models::hsetp2,
     {{{Mod::LT}, {Mod::EQU}, {Mod::NUM}}, kHalfForms, {{Mod::AND}, {Mod::OR}, {Mod::XOR}}},
     fixed<D::Half2, D::Half2, D::Pred>},
    {Opcode::HSET2,
     models::hsetp2,
     {kFloatCmps, kHalfForms, {{}, {Mod::BFV}}},
     fixed<D::Half2, D::Half2, D::Pred>},
    {Opcode::HSET2,
     models::hsetp2,
     {{{Mod::LE}, {Mod::NEU}},
      kHalfForms,
      kFtz,
      {{Mod::AND}, {Mod::OR}, {Mod::XOR}},
      {{}, {Mod::BFV}}},
     fixed<D::Half2, D::Half2, D::Pred>},
    {Opcode::F2FP,
     models::f2fp,
     {{{Mod::F16, Mod::SRC_F32},
       {Mod::BF16, Mod::SRC_F32},
       {Mod::F16, Mod::SRC_F32, Mod::SATFINITE},
       {Mod::BF16, Mod::SRC_F32, Mod::SATFINITE},
       {Mod::E4M3, Mod::SRC_F32, Mod::SATFINITE},
       {Mod::E5M2, Mod::SRC_F32, Mod::SATFINITE},
       {Mod::E4M3, Mod::SRC_F16, Mod::SATFINITE},
       {Mod::E5M2, Mod::SRC_F16, Mod::SATFINITE},
       {Mod::F16, Mod::SRC_E4M3},
       {Mod::F16, Mod::SRC_E5M2}},
      {{}, {Mod::RZ}},
      {{}, {Mod::RELU}}},
     f2fpSources},
    {Opcode::LD, models::load, {kAccess, kLdQuals}, loadSources},
    {Opcode::LDG, models::load, {{{Mod::E}}, kAccess, kLdgQuals}, loadSources},
    {Opcode::LDS, models::load, {kAccess, kLdsQuals}, loadSources},
    {Opcode::LDL, models::load, {kAccess, kLdlQuals}, loadSources},
    {Opcode::LDC, models::load, {kAccess}, fixed<D::CBank>},
    {Opcode::ST, models::store, {kAccess, kStQuals}, storeSources},
    {Opcode::STG, models::store, {{{Mod::E}}, kAccess, kStgQuals}, storeSources},
    {Opcode::STS, models::store, {kAccess, kStsQuals}, storeSources},
    {Opcode::STL, models::store, {kAccess, kStlQuals}, storeSources},
    {Opcode::ATOM, models::atomic, {{{Mod::E}}, atomOps(), kAtomInts, kAtomOrders}, atomSources},
    {Opcode::ATOM,
     models::atomic,
     {{{Mod::E}}, {{Mod::ADD}}, kAtomFloats, {{}, {Mod::RELAXED, Mod::GPU}}},
     atomSources},
    {Opcode::ATOM, models::atomic, {{{Mod::E}}, {{Mod::CAS}}, {{Mod::U16}}}, atomSources},
    {Opcode::ATOM,
     models::atomic,
     {{{Mod::E}},
      {{Mod::ADD}, {Mod::CAS}},
      {{Mod::RELAXED, Mod::CTA}, {Mod::ACQUIRE, Mod::GPU}, {Mod::RELEASE, Mod::CLUSTER}}},
     atomSources},
    {Opcode::ATOM,
     models::atomic,
     {{{Mod::E}}, {{Mod::ADD}, {Mod::EXCH}}, {{}, {Mod::W64}}, {{Mod::HINT}}},
     atomSources},
    {Opcode::ATOMG,
     models::atomic,
     {{{Mod::E}}, atomOps(), {{}, {Mod::W64}}, {{}, {Mod::RELEASE, Mod::GPU}}},
     atomSources},
    {Opcode::ATOMG,
     models::atomic,
     {{{Mod::E}}, {{Mod::ADD}}, kAtomFloats, {{}, {Mod::HINT}}},
     atomSources},
    {Opcode::ATOMS, models::atomic, {atomOps(), {{}, {Mod::S32}, {Mod::W64}}}, atomSources},
    {Opcode::ATOMS, models::atomic, {{{Mod::ADD}}, kAtomFloats}, atomSources},
    {Opcode::ATOMS,
     models::atomic,
     {{{Mod::CAS}}, {{Mod::U16}}, {{}, {Mod::ACQUIRE, Mod::CTA}}},
     atomSources},
    {Opcode::RED, models::atomic, {{{Mod::E}}, kRedOps, kAtomInts, kRedOrders}, atomSources},
    {Opcode::RED, models::atomic, {{{Mod::E}}, {{Mod::ADD}}, kAtomFloats}, atomSources},
    {Opcode::REDG,
     models::atomic,
     {{{Mod::E}}, kRedOps, {{}, {Mod::W64}}, {{}, {Mod::HINT}}},
     atomSources},
    {Opcode::REDG,
     models::atomic,
     {{{Mod::E}}, {{Mod::ADD}}, kAtomFloats, {{}, {Mod::RELEASE, Mod::SYS}}},
     atomSources},
    {Opcode::MEMBAR,
     models::noEffect,
     {{{Mod::SC}, {Mod::ACQ_REL}, {Mod::ACQUIRE}, {Mod::RELEASE}}, kScopes},
     fixed<>},
    {Opcode::FENCE,
     models::noEffect,
     {{{Mod::ALIAS},
       {Mod::ASYNC},
       {Mod::ASYNC, Mod::SP_GLOBAL},
       {Mod::ASYNC, Mod::SP_SHARED},
       {Mod::ASYNC, Mod::SP_SHARED_CLUSTER}}},
     fixed<>},
    {Opcode::NANOSLEEP, models::noEffect, {{{}}}, fixed<D::Int>},
    {Opcode::CCTL,
     models::noEffect,
     {{{Mod::PF1},
       {Mod::PF2},
       {Mod::PF2, Mod::L2_EL},
       {Mod::PF2, Mod::L2_EN},
       {Mod::PFU},
       {Mod::APPLYPRIORITY, Mod::L2_EN},
       {Mod::DISCARD}},
      {{}, {Mod::SP_GLOBAL}}},
     cctlSources},
    {Opcode::QSPC,
     models::qspc,
     {{{Mod::SP_GLOBAL},
       {Mod::SP_SHARED},
       {Mod::SP_SHARED_CLUSTER},
       {Mod::SP_LOCAL},
       {Mod::SP_CONST},
       {Mod::SP_PARAM}},
      {{}, {Mod::W64}}},
     fixed<D::Window>},
    {Opcode::CREATEPOLICY,
     models::createpolicy,
     {{{Mod::FRACTIONAL}, {Mod::RANGE}, {Mod::RANGE, Mod::SP_GLOBAL}},
      {{Mod::L2_EN}, {Mod::L2_EF, Mod::L2_SEU}, {Mod::L2_EL, Mod::L2_SEF}, {Mod::L2_EU}}},
     policySources},
    {Opcode::CREATEPOLICY, models::createpolicy, {{{Mod::CVT}}}, policySources},
    {Opcode::ELECT, models::elect, {{{}}}, fixed<D::Int>},
    // The warp-level matrix instructions: uninterpreted (verify/model_matrix.cpp), one
    // combination per form sm_90 has.
    {Opcode::HMMA, models::uninterpretedWarp, {mmaAxis(Opcode::HMMA)}, matrixSources, true},
    {Opcode::IMMA, models::uninterpretedWarp, {mmaAxis(Opcode::IMMA)}, matrixSources, true},
    {Opcode::DMMA, models::uninterpretedWarp, {mmaAxis(Opcode::DMMA)}, matrixSources, true},
    {Opcode::BMMA, models::uninterpretedWarp, {mmaAxis(Opcode::BMMA)}, matrixSources, true},
    {Opcode::MOVM, models::uninterpretedWarp, {{{Mod::MT88}}}, fixed<D::Int>, true},
};

} // namespace

std::span<const ModelEntry> modelTable() { return kModelTable; }

const ModelEntry *findModelEntry(Opcode op) {
  for (const ModelEntry &e : kModelTable)
    if (e.op == op)
      return &e;
  return nullptr;
}

std::vector<ModSet> combinations(const ModelEntry &e) {
  std::vector<ModSet> out{ModSet{}};
  for (const Axis &axis : e.axes) {
    std::vector<ModSet> next;
    for (const ModSet &base : out)
      for (const std::vector<Mod> &alt : axis) {
        ModSet s = base;
        for (Mod m : alt)
          s.set(m);
        next.push_back(s);
      }
    out = std::move(next);
  }
  return out;
}

// ---------------------------------------------------------------- driver

namespace {
bool isPredicateOperand(const Operand &o) {
  return o.kind == Operand::Kind::Reg && o.reg.isPredicate();
}
} // namespace

ModelInputs freshInputs(Smt &smt, const Instr &in, const std::string &prefix) {
  auto name = [&](const std::string &n) { return prefix + n; };
  ModelInputs x{{},
                smt.boolVar(name("g")),
                {},
                smt.bvVar(name("mem"), 64),
                smt.bvVar(name("tid"), 32),
                smt.bvVar(name("ctaid"), 32),
                smt.bvVar(name("ntid"), 32),
                smt.bvVar(name("nctaid"), 32)};
  for (size_t i = 0; i < in.srcs.size(); ++i) {
    std::string n = name(fmt::format("s{}", i));
    x.srcs.push_back(isPredicateOperand(in.srcs[i]) ? smt.boolVar(n) : smt.bvVar(n, 64));
  }
  for (size_t i = 0; i < in.dsts.size(); ++i) {
    std::string n = name(fmt::format("d{}", i));
    x.oldDsts.push_back(isPredicateOperand(in.dsts[i]) ? smt.boolVar(n) : smt.bvVar(n, 64));
  }
  return x;
}

std::optional<ModelOutputs> modelInstr(Smt &smt, const Instr &in, const ModelInputs &x) {
  const ModelEntry *e = findModelEntry(in.op);
  if (!e || x.srcs.size() != in.srcs.size() || x.oldDsts.size() != in.dsts.size())
    return std::nullopt;
  ModelContext m(smt, in, x);
  std::optional<ModelOutputs> out = e->model(m);
  if (!out || out->dsts.size() != in.dsts.size())
    return std::nullopt;
  // The guard: false leaves every destination and the memory as they were.
  // An unguarded result is the result itself, not ite(true, ...): Z3 does not simplify terms
  // as it builds them, and the translation validator relies on equal computations giving
  // equal terms (a copy MOV.64 R2, R1 must give R1's term).
  z3::expr g = !in.guard ? smt.boolVal(true) : in.guard->neg ? !x.guard : x.guard;
  auto guarded = [&](const z3::expr &result, const z3::expr &old) {
    return g.is_true() ? result : g.is_false() ? old : z3::ite(g, result, old);
  };
  for (size_t i = 0; i < out->dsts.size(); ++i) {
    const Operand &d = in.dsts[i];
    if (d.kind == Operand::Kind::Reg && d.reg.isConst()) // RZ/PT: writes are discarded
      out->dsts[i] = d.reg.isPredicate() ? smt.boolVal(true) : smt.bv(0, 64);
    else
      out->dsts[i] = guarded(out->dsts[i], x.oldDsts[i]);
  }
  if (out->memory)
    out->memory = guarded(*out->memory, x.memory);
  return out;
}

} // namespace ori::verify
