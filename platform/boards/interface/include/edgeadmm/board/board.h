// The board interface: the ports a bare-metal firmware (and every target
// test) takes from its MCU board. Every folder under platform/boards
// implements these functions for one board; EDGEADMM_BOARD picks the one a
// build links. Nothing here names a particular board, a debugger channel or a
// host file: firmware that includes only this header (and ethernet.h for the
// network) builds unchanged for every board (docs/porting.md, "The board
// interface").
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/baremetal/flash_storage.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm::board {

// Entropy for the DRBG seed: the board's hardware TRNG. A board without one
// (an emulator) returns a deterministic source and says so in its folder;
// such a board is UNSAFE FOR PRODUCTION.
EntropySource& Entropy();

// The flash region the board reserves for persistent state (the flash
// port, baremetal/flash_storage.h). Before OpenStorage, every operation fails.
baremetal::FlashDevice& Flash();

// Makes Flash() usable: a real board checks its flash controller, an
// emulated one opens the model that backs its flash. The board decides where
// the region lives; the firmware names nothing. UNAVAILABLE if the flash
// cannot be reached. Repeated calls are harmless.
Status OpenStorage();

// Persistent storage for the device state (the SDK's Storage port): a
// FlashStorage over Flash(), atomic across a power loss. Before OpenStorage
// every Read and Write fails with UNAVAILABLE.
Storage& PersistentStorage();

// Copies the start of the board's provisioning record (identity, keys,
// network settings, written at the factory) into `out`. UNAVAILABLE if the
// board has none or cannot read it; `out` larger than the record is
// INVALID_ARGUMENT.
Status ReadProvisioning(ByteSpan out);

// Monotonic milliseconds since reset (resolution: the board's timer; at
// most 10 ms, enough for CoAP and lwIP timers).
uint64_t NowMs();

// Writes a NUL-terminated string to the board's console (a UART, a debug
// channel). Never fails visibly: a board without a console drops the text.
void ConsoleWrite(const char* text);

// Stops the firmware for good: an emulated board ends the program with
// `exit_code` (its host sees it); a real board resets or waits for a
// debugger. The panic hook calls it after ConsoleWrite.
[[noreturn]] void Halt(int exit_code);

// The firmware's start-up arguments: words separated by spaces, the first
// one naming the image, copied NUL-terminated into `buffer`. A product
// answers from its provisioning or a fixed string; test boards pass them
// from the host. False if there are none or they do not fit.
bool CommandLine(char* buffer, size_t size);

// Power-loss injection, for tests of the storage's atomicity. A board that
// can simulate a power loss (an emulator's flash model) arranges for the
// `operation`-th Erase or Program on Flash() from now (1 = the next one) to
// stop halfway and end the program with kPowerCutExitCode, and returns
// true; 0 disables it. A board that cannot returns false.
inline constexpr int kPowerCutExitCode = 3;
bool CutPowerDuringFlashOperation(uint32_t operation);

// Erase and Program calls on Flash() so far (0 on a board that does not
// count them).
uint32_t FlashOperations();

}  // namespace edgeadmm::board
