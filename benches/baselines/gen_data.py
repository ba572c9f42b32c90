"""Writes the input values of the suite (benches/baselines/suite.py) into a
folder, one file of binary values per input, from fixed seeds, so that
every contender reads the same numbers. Usage: gen_data.py DIR full|quick|tiny"""
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fvalues  # noqa: E402
import suite  # noqa: E402


def main():
    out, mode = sys.argv[1], sys.argv[2]
    s = suite.SIZES[mode]
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, "SIZES")
    if os.path.exists(stamp) and open(stamp).read() == repr(s):
        return  # already written
    gens = suite.inputs(s)
    for name, gen in gens.items():
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            if name == "spmv":
                for v in suite.spmv_values(rng, s["sp_rows"]):
                    fvalues.write_value(f, v)
            else:
                fvalues.write_value(f, gen(rng))
    with open(stamp, "w") as f:
        f.write(repr(s))


if __name__ == "__main__":
    main()
