// ascend-run kernel-info FILE (kernel_info.cpp).
#pragma once

// Prints the kernels of the kernel binary at `path`; 0, or 1 (with the loader's message) if the
// file is not a valid kernel binary.
int kernel_info(const char* path);
