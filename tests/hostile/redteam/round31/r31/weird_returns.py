"""Round 31: one submission per odd return value of run_gelu, to see every host-side renderer take them
(batch, --feedback, --lms, --csv, report, report --html). Usage: python weird_returns.py SUBS_DIR"""
import sys
from pathlib import Path

CASES = {
    "w01_complex": "np.asarray(x, dtype=np.complex128) * (1+1j)",
    "w02_bool": "np.ones(np.shape(x), dtype=bool)",
    "w03_empty": "np.zeros((0,), dtype=np.float32)",
    "w04_0d": "np.float32(1.0)",
    "w05_ndim32": "np.zeros((1,) * 32, dtype=np.float32)",
    "w06_str": "np.full(np.shape(x), 'a\\x1b[31mred\\u202e', dtype='<U9')",
    "w07_datetime": "np.zeros(np.shape(x), dtype='datetime64[s]')",
    "w08_struct": "np.zeros(np.shape(x), dtype=[('a', 'f4'), ('b', 'i4')])",
    "w09_f16nan": "np.full(np.shape(x), np.nan, dtype=np.float16)",
    "w10_u64max": "np.full(np.shape(x), np.iinfo(np.uint64).max, dtype=np.uint64)",
    "w11_object": "np.array([object()] * max(1, np.size(x)), dtype=object)",
    "w12_nested_list": "[[1.0, [2.0]], 3.0]",
    "w13_masked": "np.ma.masked_array(np.asarray(x), mask=True)",
    "w14_matrix": "np.matrix(np.asarray(x).reshape(1, -1))",
    "w15_bigendian": "np.asarray(x).astype('>f8') * 1e308 * 10",
    "w16_longdouble": "np.asarray(x).astype(np.longdouble)",
    "w17_tuple": "(np.asarray(x), np.asarray(x))",
    "w18_dict": "{'y': np.asarray(x)}",
    "w19_huge_shape": "np.zeros((1, 1, 3000, 1000), dtype=np.float32)",
    "w20_inf": "np.full(np.shape(x), -np.inf, dtype=np.float64)",
    "w21_void": "np.zeros(np.shape(x), dtype='V8')",
    "w22_bytes": "np.full(np.shape(x), b'\\xff\\x1b', dtype='S2')",
    "w23_timedelta": "np.zeros(np.shape(x), dtype='m8[ns]')",
    "w24_negzero_i": "-np.zeros(np.shape(x), dtype=np.int64) + np.iinfo(np.int64).min",
    "w25_subnormal": "np.full(np.shape(x), 1e-45, dtype=np.float32)",
}
subs = Path(sys.argv[1])
for name, expr in CASES.items():
    d = subs / name / "student"
    d.mkdir(parents=True, exist_ok=True)
    (d / "gelu.py").write_text(f"import numpy as np\n\ndef run_gelu(x):\n    return {expr}\n")
