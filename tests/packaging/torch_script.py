# The root's real PyTorch on its real CUDA 12 libraries, driverless: the calls fail for real.
import torch

print("available", torch.cuda.is_available(), "count", torch.cuda.device_count(), flush=True)
try:
    torch.zeros(2).cuda()
except RuntimeError as e:
    print("ERROR:", str(e).splitlines()[0])
