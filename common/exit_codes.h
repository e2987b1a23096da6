// exit_codes.h: how a program or a test program ends when the user has something to fix.
#pragma once

// Bad input (an option, a size, a file), one line naming it; and no usable GPU (gpu.h), one
// line saying why: both are the user's to fix, so both end with the same code.
constexpr int kExitBadInput = 2;
constexpr int kExitNoGpu = 2;
