// Reset and fault handling for the MPS2-AN386 (Cortex-M4F): the vector table,
// FPU enable, .data/.bss initialisation, static constructors, main, and the
// exit status reported through semihosting.
#include <cstddef>
#include <cstdint>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/semihosting.h"
#include "edgeadmm/baremetal/stack.h"

extern "C" {
// Linker-script symbols (platform/boards/mps2_an386/mps2_an386.ld, and the
// same names in the variants' scripts).
extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __stack_bottom__[], __stack_top__[];
using InitFunction = void (*)();
extern InitFunction __preinit_array_start[], __preinit_array_end[];
extern InitFunction __init_array_start[], __init_array_end[];

// The program's main(), under another name: ISO C++ forbids calling main.
int edgeadmm_application_main() __asm__("main");
[[noreturn]] void Reset_Handler();
[[noreturn]] void edgeadmm_fault_handler();
}

namespace {

// Coprocessor Access Control Register (Armv7-M ARM, B3.2.20).
volatile uint32_t& Cpacr() {
  return *reinterpret_cast<volatile uint32_t*>(0xE000ED88u);
}
// Configurable Fault Status and HardFault Status registers.
volatile uint32_t& Cfsr() {
  return *reinterpret_cast<volatile uint32_t*>(0xE000ED28u);
}
volatile uint32_t& Hfsr() {
  return *reinterpret_cast<volatile uint32_t*>(0xE000ED2Cu);
}

constexpr int kFaultExitCode = 135;
constexpr uint32_t kStackPattern = 0xA5A5A5A5u;
// Words just below the stack pointer at reset that painting leaves alone
// (Reset_Handler's own frame).
constexpr uintptr_t kPaintMargin = 64;

// One slot of the vector table: the initial stack pointer or a handler.
union VectorEntry {
  constexpr VectorEntry(uint32_t* stack) : stack_pointer(stack) {}
  constexpr VectorEntry(void (*function)()) : handler(function) {}
  constexpr VectorEntry(std::nullptr_t) : handler(nullptr) {}  // reserved
  uint32_t* stack_pointer;
  void (*handler)();
};

}  // namespace

// Armv7-M exception vectors: SP, Reset, NMI, HardFault, MemManage, BusFault,
// UsageFault, 4 reserved, SVCall, DebugMonitor, reserved, PendSV, SysTick.
// No external interrupt is ever enabled, so the table stops there; a port
// that enables an NVIC line appends its handlers.
extern "C" __attribute__((section(".isr_vector"), used))
const VectorEntry edgeadmm_vector_table[16] = {__stack_top__,
                                               Reset_Handler,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler,
                                               nullptr,
                                               nullptr,
                                               nullptr,
                                               nullptr,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler,
                                               nullptr,
                                               edgeadmm_fault_handler,
                                               edgeadmm_fault_handler};

// Entered from reset with the stack pointer loaded from the vector table.
// Uses no floating point before the FPU is enabled.
extern "C" void Reset_Handler() {
  Cpacr() |= 0xFu << 20;  // CP10 and CP11: full access
  asm volatile("dsb\n\tisb" ::: "memory");

  volatile uint32_t* source = __data_load__;
  for (volatile uint32_t* p = __data_start__; p < __data_end__;)
    *p++ = *source++;
  for (volatile uint32_t* p = __bss_start__; p < __bss_end__;) *p++ = 0;
  uint32_t* sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  const uintptr_t paint_end = reinterpret_cast<uintptr_t>(sp) - kPaintMargin;
  for (volatile uint32_t* p = __stack_bottom__;
       reinterpret_cast<uintptr_t>(p) < paint_end;) {
    *p++ = kStackPattern;
  }

  for (InitFunction* f = __preinit_array_start; f < __preinit_array_end; ++f)
    (*f)();
  for (InitFunction* f = __init_array_start; f < __init_array_end; ++f) (*f)();

  edgeadmm::baremetal::SemihostingExit(edgeadmm_application_main());
}

namespace edgeadmm::baremetal {

size_t StackBytesUsed() {
  const uint32_t* p = __stack_bottom__;
  while (p < __stack_top__ && *p == kStackPattern) ++p;
  return static_cast<size_t>(reinterpret_cast<uintptr_t>(__stack_top__) -
                             reinterpret_cast<uintptr_t>(p));
}

size_t StackBytesReserved() {
  return static_cast<size_t>(reinterpret_cast<uintptr_t>(__stack_top__) -
                             reinterpret_cast<uintptr_t>(__stack_bottom__));
}

}  // namespace edgeadmm::baremetal

// Any fault or unexpected interrupt: report the fault status and stop.
extern "C" void edgeadmm_fault_handler() {
  uint32_t ipsr;
  asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  char text[96];
  edgeadmm::baremetal::Format(
      text, sizeof(text), "fault: exception %u, CFSR=0x%08x HFSR=0x%08x\n",
      static_cast<unsigned>(ipsr & 0x1FFu), static_cast<unsigned>(Cfsr()),
      static_cast<unsigned>(Hfsr()));
  edgeadmm::baremetal::SemihostingWrite(text);
  edgeadmm::baremetal::SemihostingExit(kFaultExitCode);
}
