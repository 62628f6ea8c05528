// Instruction counts on the MPS2-AN386 board under QEMU `-icount shift=0`:
// the virtual clock advances exactly 1 ns per executed instruction, and the
// board's CMSDK APB timer 0 (32-bit down-counter on the 25 MHz PCLK) counts
// that clock, so one tick is 40 instructions. Used by the benchmark
// firmware (step_benchmark.cc, tests/target/network/round_benchmark.cc);
// without -icount the counts are meaningless (run_step_benchmark.py checks a
// calibration loop). Wraps after 2^32 ticks (1.7e11 instructions).
#pragma once

#include <cstdint>

namespace edgeadmm::instruction_timer {

inline constexpr uintptr_t kTimer0 = 0x40000000u;
inline constexpr uint64_t kInstructionsPerTick = 40;

inline volatile uint32_t& Reg(uintptr_t address) {
  return *reinterpret_cast<volatile uint32_t*>(address);
}

inline void Start() {
  Reg(kTimer0 + 0x0) = 0;            // CTRL: stop
  Reg(kTimer0 + 0x8) = 0xFFFFFFFFu;  // RELOAD
  Reg(kTimer0 + 0x4) = 0xFFFFFFFFu;  // VALUE
  Reg(kTimer0 + 0x0) = 1;            // CTRL: enable (PCLK, no interrupt)
}

// Ticks since Start.
inline uint32_t Ticks() { return 0xFFFFFFFFu - Reg(kTimer0 + 0x4); }

inline uint64_t Instructions(uint32_t from, uint32_t to) {
  return uint64_t{to - from} * kInstructionsPerTick;
}

// A loop of a known length (`subs`/`bne`, 2 instructions per iteration):
// the instructions it executes, and what the timer counted for it. They
// must agree within a tick or two, or -icount shift=0 is missing.
inline constexpr uint64_t kCalibrationInstructions = 2000000;
inline uint64_t MeasureCalibrationLoop() {
  uint32_t n = static_cast<uint32_t>(kCalibrationInstructions / 2);
  const uint32_t t0 = Ticks();
  asm volatile(
      "1: subs %0, %0, #1\n"
      "   bne 1b\n"
      : "+r"(n)
      :
      : "cc");
  const uint32_t t1 = Ticks();
  return Instructions(t0, t1);
}

}  // namespace edgeadmm::instruction_timer
