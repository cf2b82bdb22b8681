#pragma once

#include <cuda.h>

namespace standin::driver {

// The value of `attribute` for the device with that physical index; false for an attribute
// number that does not exist.
bool device_attribute(CUdevice_attribute attribute, int physical_index, int* value);

constexpr const char* kDeviceName = "Standin CPU Device";

}  // namespace standin::driver
