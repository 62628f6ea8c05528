// Lower-case hexadecimal encoding of byte strings (PSKs, digests): the
// registry's PSK files and the CLI write it, the fleet's devices read it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/result.h"

namespace edgeadmm::host {

// "0a1b..." for the given bytes.
std::string ToHex(const std::vector<uint8_t>& bytes);
// Parses hex (either case, surrounding whitespace ignored); INVALID_ARGUMENT
// on an odd length or a non-hex character.
Result<std::vector<uint8_t>> FromHex(std::string_view text);

}  // namespace edgeadmm::host
