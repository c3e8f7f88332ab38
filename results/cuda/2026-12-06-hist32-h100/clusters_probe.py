"""How many thread-block clusters of each size an H100 holds at once (the driver's
cuOccupancyMaxActiveClusters), for blocks that take a whole SM each, as the cluster rows'
wide blocks do (their registers): a trivial kernel made to take one SM a block by its dynamic
shared memory. With `--per-sm`, also for blocks of 512 threads of which exactly 2, 3 and 4
fit an SM (by their shared memory). Needs only the driver (ctypes)."""

import ctypes as C
import sys

cu = C.CDLL("libcuda.so.1")


def check(rc: int, what: str) -> None:
    if rc != 0:
        sys.exit(f"{what}: CUDA error {rc}")


class LaunchAttribute(C.Structure):
    # CUlaunchAttribute: the id, padding to 8 bytes, a 64-byte value union (clusterDim first)
    _fields_ = [("id", C.c_uint), ("pad", C.c_uint), ("x", C.c_uint), ("y", C.c_uint),
                ("z", C.c_uint), ("rest", C.c_ubyte * 52)]


class LaunchConfig(C.Structure):
    _fields_ = [("gx", C.c_uint), ("gy", C.c_uint), ("gz", C.c_uint), ("bx", C.c_uint),
                ("by", C.c_uint), ("bz", C.c_uint), ("smem", C.c_uint), ("stream", C.c_void_p),
                ("attrs", C.POINTER(LaunchAttribute)), ("nattrs", C.c_uint)]


PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry probe() { ret; }
"""

check(cu.cuInit(0), "cuInit")
dev, ctx, mod, fn = C.c_int(), C.c_void_p(), C.c_void_p(), C.c_void_p()
check(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
check(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
check(cu.cuModuleLoadData(C.byref(mod), PTX), "cuModuleLoadData")
check(cu.cuModuleGetFunction(C.byref(fn), mod, b"probe"), "cuModuleGetFunction")
sms = C.c_int()
check(cu.cuDeviceGetAttribute(C.byref(sms), 16, dev), "SM count")  # MULTIPROCESSOR_COUNT
SMEM = 120 * 1024  # more than half an SM's shared memory: one block an SM
check(cu.cuFuncSetAttribute(fn, 8, SMEM), "max dynamic shared")  # MAX_DYNAMIC_SHARED_SIZE_BYTES
check(cu.cuFuncSetAttribute(fn, 14, 1), "non-portable cluster size")  # NON_PORTABLE_..._ALLOWED
print(f"SMs {sms.value}; one block an SM ({SMEM} bytes of dynamic shared memory)")
for threads in (256, 800, 1024):
    row = []
    for size in range(1, 17):
        attr = LaunchAttribute(id=4, x=size, y=1, z=1)  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        cfg = LaunchConfig(gx=size, gy=1, gz=1, bx=threads, by=1, bz=1, smem=SMEM, stream=None,
                           attrs=C.pointer(attr), nattrs=1)
        n = C.c_int()
        rc = cu.cuOccupancyMaxActiveClusters(C.byref(n), fn, C.byref(cfg))
        row.append(f"{size}:{n.value if rc == 0 else 'err' + str(rc)}({n.value * size if rc == 0 else 0})")
    print(f"{threads} threads  clusters (blocks) by size: " + " ".join(row))
if "--per-sm" in sys.argv:
    per_sm = C.c_int()
    check(cu.cuDeviceGetAttribute(C.byref(per_sm), 81, dev), "an SM's shared memory")
    for per in (2, 3, 4):
        smem = per_sm.value // (per + 1) + 1  # `per` blocks fit an SM, `per + 1` do not
        row = []
        for size in range(1, 17):
            attr = LaunchAttribute(id=4, x=size, y=1, z=1)
            cfg = LaunchConfig(gx=size, gy=1, gz=1, bx=512, by=1, bz=1, smem=smem, stream=None,
                               attrs=C.pointer(attr), nattrs=1)
            n = C.c_int()
            rc = cu.cuOccupancyMaxActiveClusters(C.byref(n), fn, C.byref(cfg))
            row.append(f"{size}:{n.value if rc == 0 else 'err' + str(rc)}")
        print(f"{per} blocks an SM ({smem} bytes each): clusters by size: " + " ".join(row))
