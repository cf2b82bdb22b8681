# cudaGetDeviceCount through Python ctypes: dlopen + dlsym, a route around LD_PRELOAD.
import ctypes

runtime = ctypes.CDLL("libcudart.so.13")
count = ctypes.c_int(-1)
status = runtime.cudaGetDeviceCount(ctypes.byref(count))
print(f"cudaGetDeviceCount {status} count {count.value}")
