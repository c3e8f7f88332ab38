import numpy as np

SPECIAL32 = np.array(
    [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFF800001, 0x7F800001, 0x7F800000, 0xFF800000,
     0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
     0x7F7FFFFF, 0xFF7FFFFF],
    dtype=np.uint32,
)
SPECIAL16 = np.array(
    [0x7E00, 0xFE00, 0x7E31, 0xFC01, 0x7C01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x8001,
     0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF],
    dtype=np.uint16,
)
SPECIALBF = np.array(
    [0x7FC0, 0xFFC0, 0x7FC3, 0xFF81, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x8001,
     0x007F, 0x807F, 0x0080, 0x7F7F, 0xFF7F],
    dtype=np.uint16,
)


def matrix(rng, n, m, dtype):
    """An (n, m) matrix of `dtype` ('f4', 'f2', 'bf16') from a random family."""
    fam = rng.integers(0, 7)
    if fam == 0:
        base = rng.standard_normal((n, m))
    elif fam == 1:
        base = rng.integers(-3, 4, size=(n, m)).astype(np.float64)  # heavy ties
    elif fam == 2:
        base = np.maximum(rng.standard_normal((n, m)), 0)  # relu: many zeros
    elif fam == 3:
        base = rng.standard_normal((n, m)) * 1e-40  # subnormal-ish in f32, zero in f16
    elif fam == 4:
        base = rng.uniform(-1, 1, (n, m)) * 10.0 ** rng.integers(-5, 5)
    elif fam == 5:
        base = np.round(rng.standard_normal((n, m)) * 4) / 4  # ties near the k-th
    else:
        base = np.full((n, m), rng.standard_normal())  # all equal
    if dtype == "f4":
        x = base.astype(np.float32)
        sp, view = SPECIAL32, np.uint32
    elif dtype == "f2":
        x = base.astype(np.float16)
        sp, view = SPECIAL16, np.uint16
    else:
        import ml_dtypes

        x = base.astype(np.float32).astype(ml_dtypes.bfloat16)
        sp, view = SPECIALBF, np.uint16
    frac = rng.choice([0.0, 0.0, 0.01, 0.1, 0.5, 1.0])
    if frac > 0 and n * m > 0:
        mask = rng.random((n, m)) < frac
        b = x.view(view)
        b[mask] = rng.choice(sp, size=int(mask.sum()))
        # sometimes negative zero everywhere a zero is
        if rng.random() < 0.3:
            z = b == 0
            b[z] = view(0x80000000 if view is np.uint32 else 0x8000)
    return x
