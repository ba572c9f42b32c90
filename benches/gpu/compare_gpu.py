#!/usr/bin/env python3
"""arrc's GPU binaries against hand-written CUDA and JAX on the GPU, with
the device-to-device copy bandwidth as the streaming yardstick; writes a
page like docs/performance.md. `benches/compare.py --target ...` runs it.

    # on a machine with a GPU and arrc (everything in one go)
    python3 benches/compare.py --target nvptx
    # without Rust on the GPU machine: build here, carry the folder, run there
    python3 benches/compare.py --target nvptx --gpu sm_90 --prepare target/gpu-bench
    python3 benches/compare.py --target nvptx --prebuilt target/gpu-bench --out $OUT/gpu.md
    # the same script end to end on the GPU emulator (tiny sizes)
    python3 benches/compare.py --target nvptx-emu

Steps: the inputs (benches/baselines/gen_data.py, sizes full, quick or tiny);
arrc's binaries (`arrc build -O3 --target T`, or a --prebuilt folder's);
the CUDA baselines (benches/baselines/cuda/*.cu, `nvcc -O3 -arch=native`)
when nvcc and a GPU are there; JAX (`jax.jit`, benches/baselines/py_bench.py)
when its default backend is a GPU; then ROUNDS rounds, each running every
program under every contender, the order rotating, and the copy yardstick
(`cudaMemcpy` device to device of saxpy's `x`) once a round. Times are the
kernels' only: no input reading, host-device copies of the entry's
arguments and results, JIT compilation or output (arrc's `-t` leaves the
entry's copies out, the CUDA baselines copy in setup, JAX has `device_put`
before timing). A contender that is missing is skipped and the page says
why. --deadline stops starting runs after that many seconds (a device call
lasts at most 10 minutes); the page is written after every round and at
the deadline."""
import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASE = os.path.join(ROOT, "benches", "baselines")
PROGS_DIR = os.path.join(ROOT, "benches", "programs")
CUDA_DIR = os.path.join(BASE, "cuda")
sys.path.insert(0, BASE)
sys.path.insert(0, os.path.dirname(HERE))
import compare  # noqa: E402
import suite  # noqa: E402

LABEL = {"arrc": "arrc", "cuda": "CUDA", "jax": "JAX"}
TIMEOUT = 150  # one process; a hung one must not eat a device call


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cmd_out(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return r.stdout.strip() if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def find_nvcc():
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if c and os.path.exists(c):
            return c
    return None


def gpu_name():
    out = cmd_out(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    return out.splitlines()[0] if out else None


def build_arrc(arrc, progs, target, gpu, cpu, out_dir):
    """`arrc build -O3` of every program into out_dir/arrc-PROG; returns
    (compile seconds, errors)."""
    ctimes, errors = {}, {}
    for p in progs:
        exe = os.path.join(out_dir, "arrc-" + p)
        cmd = [arrc, "build", "-O3", "--target", target, "--gpu", gpu, "--cpu", cpu,
               os.path.join(PROGS_DIR, p + ".arr"), "-o", exe]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        ctimes[p] = time.perf_counter() - t0
        if r.returncode != 0:
            errors[p] = "arrc build failed: " + (r.stderr or r.stdout).strip()[-400:]
            log(errors[p])
    return ctimes, errors


def build_cuda(nvcc, names, work):
    """nvcc -O3 of benches/baselines/cuda/NAME.cu into work/cuda-NAME;
    returns errors."""
    errors = {}
    for p in names:
        r = subprocess.run([nvcc, "-O3", "-arch=native", "-std=c++17", "-Xcompiler", "-fopenmp", "-o",
                            os.path.join(work, "cuda-" + p), os.path.join(CUDA_DIR, p + ".cu"), "-lgomp"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        if r.returncode != 0:
            errors[p] = "nvcc failed: " + r.stderr.strip()[-400:]
            log(errors[p])
    return errors


def export_golden(arrc, args, progs, out):
    """The golden programs and the benchmarks' small cases, run on the
    emulator (shrunk launches) and exported for `args.target`
    (src/driver/export.rs) into `out`, for benches/gpu/golden.py."""
    if args.no_golden:
        return True
    shutil.rmtree(out, ignore_errors=True)
    small = os.path.join(out, "benches")
    os.makedirs(small, exist_ok=True)
    for p in progs:
        compare.strip_bench_cases(os.path.join(PROGS_DIR, p + ".arr"), os.path.join(small, p + ".arr"))
    env = dict(os.environ, ARRC_TEST_EXPORT=out, ARRC_TEST_EXPORT_TARGET=args.target, ARRC_GPU_SHRINK="1")
    log(f"== the golden suite on the emulator, exported to {out}")
    r = subprocess.run([arrc, "test", "--target", "nvptx-emu", "--gpu", args.gpu, "--cpu", args.cpu,
                        os.path.join(ROOT, "tests", "programs"), small],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    lines = (r.stdout + r.stderr).strip().splitlines()
    for ln in [x for x in lines if x.startswith("FAIL")] + lines[-1:]:
        log(ln)
    return r.returncode == 0


def jax_backend(env):
    return cmd_out([sys.executable, "-c", "import jax; print(jax.default_backend())"]) if env else None


def run(contender, prog, files, runs, budget, bins, work, env):
    """One process of one contender on one program: (microseconds, signature)."""
    tf = os.path.join(work, f"{prog}.{contender}.times")
    out = os.path.join(work, f"{prog}.{contender}.out")
    if os.path.exists(tf):
        os.remove(tf)
    if contender == "arrc":
        cmd = [os.path.join(bins, "arrc-" + prog), "-r", str(runs), "-t", tf, "-b"]
    elif contender == "cuda":
        cmd = [os.path.join(work, "cuda-" + prog), str(runs), tf, str(budget)]
    else:
        cmd = [sys.executable, os.path.join(BASE, "py_bench.py"), contender, prog, str(runs), tf, str(budget)]
    return compare.timed_process(cmd, files, tf, out, env, contender == "arrc", TIMEOUT)


def main(argv):
    ap = argparse.ArgumentParser(prog="benches/compare.py --target", description=__doc__.split("\n")[0])
    ap.add_argument("--target", choices=["nvptx", "nvptx-emu"], required=True)
    ap.add_argument("--size", choices=["full", "quick", "tiny"],
                    help="input sizes (default: full on nvptx, tiny on the emulator)")
    ap.add_argument("--quick", action="store_true", help="--size quick")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5, help="timed runs per process after the warm-up")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timed runs after which a process stops")
    ap.add_argument("--deadline", type=float, default=480, help="seconds after which no run starts")
    ap.add_argument("--programs", help="comma-separated subset")
    ap.add_argument("--contenders", default="arrc,cuda,jax")
    ap.add_argument("--gpu", default="sm_70", help="arrc's --gpu (sm_90 for an H100)")
    ap.add_argument("--cpu", default="x86-64-v2", help="arrc's --cpu for the host code (portable by default)")
    ap.add_argument("--prepare", metavar="DIR", help="only build arrc's binaries into DIR (to carry)")
    ap.add_argument("--prebuilt", metavar="DIR", help="arrc's binaries from --prepare DIR")
    ap.add_argument("--no-golden", action="store_true",
                    help="--prepare without the golden suite's export (DIR/golden, benches/gpu/golden.py)")
    ap.add_argument("--out", help="page to write (default docs/gpu-performance.md on nvptx at full "
                    "size, else in the work folder)")
    ap.add_argument("--work", help="build and scratch folder (default a fresh temporary one)")
    args = ap.parse_args(argv)
    size = args.size or ("quick" if args.quick else "full" if args.target == "nvptx" else "tiny")
    progs = args.programs.split(",") if args.programs else list(suite.PROGRAMS)
    contenders = [c for c in ["arrc", "cuda", "jax"] if c in args.contenders.split(",")]
    t_start = time.time()

    if args.prepare:
        os.makedirs(args.prepare, exist_ok=True)
        arrc = compare.find_arrc()
        ctimes, errors = build_arrc(arrc, progs, args.target, args.gpu, args.cpu, args.prepare)
        meta = dict(arrc_version=cmd_out([arrc, "--version"]), target=args.target, gpu=args.gpu,
                    cpu=args.cpu, commit=cmd_out(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
                    built=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                    compile_seconds=ctimes, errors=errors)
        with open(os.path.join(args.prepare, "manifest.json"), "w") as f:
            json.dump(meta, f, indent=1)
        log(f"== built {len(progs) - len(errors)} of {len(progs)} programs into {args.prepare}")
        ok = export_golden(arrc, args, progs, os.path.join(args.prepare, "golden"))
        return 1 if errors or not ok else 0

    work = args.work or tempfile.mkdtemp(prefix="arrc-gpu-compare-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    skipped, errors = {}, {}
    if args.prebuilt:
        bins = args.prebuilt
        meta = json.load(open(os.path.join(bins, "manifest.json")))
        if meta["target"] != args.target:
            log(f"{bins} holds {meta['target']} binaries, not {args.target}")
            return 2
        errors.update({(p, "arrc"): e for p, e in meta["errors"].items()})
    else:
        bins = work
        arrc = compare.find_arrc()
        log("== building arrc's binaries")
        ctimes, errs = build_arrc(arrc, progs, args.target, args.gpu, args.cpu, work)
        errors.update({(p, "arrc"): e for p, e in errs.items()})
        meta = dict(arrc_version=cmd_out([arrc, "--version"]), target=args.target, gpu=args.gpu,
                    cpu=args.cpu, commit=cmd_out(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
                    compile_seconds=ctimes)

    gpu = gpu_name()
    nvcc = find_nvcc()
    cuda_progs = [p for p in progs if os.path.exists(os.path.join(CUDA_DIR, p + ".cu"))]
    copy_ok = False
    if "cuda" in contenders:
        if args.target != "nvptx" or not gpu or not nvcc:
            why = ("the emulator run compares arrc with itself only" if args.target != "nvptx"
                   else "no GPU (nvidia-smi)" if not gpu else "no nvcc")
            skipped["cuda"] = why
            log(f"== CUDA baselines skipped: {why}")
            contenders.remove("cuda")
        else:
            log("== building the CUDA baselines")
            errs = build_cuda(nvcc, cuda_progs + ["copy"], work)
            copy_ok = "copy" not in errs
            errors.update({(p, "cuda"): e for p, e in errs.items()})
    if "jax" in contenders:
        backend = jax_backend(env) if args.target == "nvptx" else None
        if backend not in ("gpu", "cuda"):
            why = ("the emulator run compares arrc with itself only" if args.target != "nvptx"
                   else f"JAX's default backend is {backend or 'missing'}, not a GPU")
            skipped["jax"] = why
            log(f"== JAX skipped: {why}")
            contenders.remove("jax")

    data = os.path.join(os.environ.get("ARRC_BENCH_DATA", "/tmp/arrc-bench-data"), size)
    log(f"== inputs ({size}) in {data}")
    subprocess.run([sys.executable, os.path.join(BASE, "gen_data.py"), data, size], check=True, env=env)

    out_md = args.out or (os.path.join(ROOT, "docs", "gpu-performance.md")
                          if args.target == "nvptx" and size == "full" else os.path.join(work, "gpu-performance.md"))
    samples, sigs, copy_times = {}, {}, []
    page = dict(args=args, size=size, progs=progs, contenders=contenders, samples=samples, sigs=sigs,
                errors=errors, skipped=skipped, meta=meta, gpu=gpu, nvcc=nvcc, data=data,
                copy_times=copy_times, rounds_done=0, cut=False, work=work)
    late = lambda: time.time() - t_start > args.deadline  # noqa: E731
    for r in range(args.rounds):
        if late():
            break
        if copy_ok:
            try:
                t, _ = run("cuda", "copy", [os.path.join(data, "x.bin")], args.runs, args.budget, bins, work, env)
                copy_times.extend(t)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                errors[("copy", "cuda")] = f"run failed: {e}"
        for i, p in enumerate(progs):
            k = (r + i) % len(contenders)
            for c in contenders[k:] + contenders[:k]:
                if (p, c) in errors or (c == "cuda" and p not in cuda_progs) or late():
                    continue
                runs = args.runs
                if c == "arrc" and samples.get((p, c)):
                    med = statistics.median(samples[(p, c)]) * 1e-6
                    runs = max(1, min(args.runs, math.ceil(args.budget / max(med, 1e-6))))
                try:
                    times, sig = run(c, p, compare.input_files(data, p), runs, args.budget, bins, work, env)
                except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
                    errors[(p, c)] = f"run failed: {e}"
                    log(f"{p} {c}: {errors[(p, c)]}")
                    continue
                samples.setdefault((p, c), []).extend(times)
                sigs.setdefault((p, c), sig)
                log(f"round {r + 1}/{args.rounds} {p:<13}{c:<6}{statistics.median(times) / 1000:10.3f} ms "
                    f"({len(times)} runs) {compare.fmt_sig(sig)}  [{time.time() - t_start:.0f} s]")
        page["cut"] = late()
        page["rounds_done"] = r + 1
        bad = write_page(page, out_md)
    page["cut"] = page["cut"] or page["rounds_done"] < args.rounds
    bad = write_page(page, out_md)
    log(f"== wrote {out_md}; raw results in {work}/gpu-results.json ({time.time() - t_start:.0f} s)")
    for b in bad:
        log("disagreement: " + b)
    return 1 if bad or any(c == "arrc" for _, c in errors) else 0


def bandwidths(page):
    """GB/s of the copy yardstick (bytes read and written) and of the
    memory-bound programs' least traffic (suite.min_bytes), per contender."""
    data, samples, sigs = page["data"], page["samples"], page["sigs"]
    copy = None
    if page["copy_times"]:
        n = compare.headers(os.path.join(data, "x.bin"))[0].size
        copy = 8 * n / (statistics.median(page["copy_times"]) * 1e-6) / 1e9
    rows = []
    for p in page["progs"]:
        vals = [v for f in compare.input_files(data, p) for v in compare.headers(f)]
        ref = sigs.get((p, "arrc")) or sigs.get((p, "cuda")) or sigs.get((p, "jax"))
        nb = suite.min_bytes(p, vals, ref) if ref else None
        if nb is None:
            continue
        cells = {c: nb / (statistics.median(samples[(p, c)]) * 1e-6) / 1e9
                 for c in page["contenders"] if samples.get((p, c))}
        rows.append((p, nb, cells))
    return copy, rows


def write_page(page, out_md):
    args, progs, contenders = page["args"], page["progs"], page["contenders"]
    samples, sigs, errors, meta = page["samples"], page["sigs"], page["errors"], page["meta"]
    stats = {k: dict(min=min(v), median=statistics.median(v), max=max(v)) for k, v in samples.items() if v}
    base = [c for c in contenders if c != "arrc"]
    L = [f"# GPU performance: arrc `--target {args.target}`"
         + (" against " + " and ".join(LABEL[c] for c in base) if base else "") + "\n"]
    L.append(f"Generated by `python3 benches/compare.py --target {args.target} --size {page['size']}` "
             f"(benches/gpu/compare_gpu.py) on "
             f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}. "
             "Do not edit by hand: run the script again.\n")
    L.append("## Set-up\n")
    L.append(f"- GPU: {page['gpu'] or 'none (nvidia-smi found no GPU)'}"
             + ("; the kernels ran on arrc's GPU emulator (CPU)" if args.target == "nvptx-emu" else "") + ".")
    L.append(f"- arrc: {meta.get('arrc_version')} at commit {meta.get('commit')}, `arrc build -O3 --target "
             f"{meta['target']} --gpu {meta['gpu']} --cpu {meta['cpu']}`; times from the binary's `-t`, which "
             "leaves out the copies of the entry's arguments in and results out.")
    if "cuda" in contenders:
        L.append(f"- CUDA: {cmd_out([page['nvcc'], '--version']).splitlines()[-1]}, `nvcc -O3 -arch=native`, "
                 "benches/baselines/cuda/*.cu (inputs copied to the device before timing).")
    if "jax" in contenders:
        L.append(f"- JAX {cmd_out([sys.executable, '-c', 'import jax; print(jax.__version__)'])}: `jax.jit` on "
                 "the GPU (benches/baselines/py_bench.py), `device_put` before and `block_until_ready` inside "
                 "the timed region.")
    for c, why in page["skipped"].items():
        L.append(f"- {LABEL[c]}: not run: {why}.")
    L.append(f"- Sizes ({page['size']}): " + ", ".join(f"{k} = {v:,}" for k, v in suite.SIZES[page["size"]].items())
             + f". {page['rounds_done']} of {args.rounds} round(s)"
             + (" (stopped at the deadline)" if page["cut"] else "")
             + f"; each process a warm-up and up to {args.runs} timed runs (about {args.budget:g} s), "
             "contenders interleaved, the order rotating.\n")
    L.append("## Times and ratios\n")
    L.append("Median milliseconds (min-max over all runs), and arrc's median over each baseline's "
             "(below 1: arrc is faster).\n")
    L.append("| " + " | ".join(["program"] + [f"{LABEL[c]} ms" for c in contenders]
                                + [f"arrc/{LABEL[c]}" for c in base]) + " |")
    L.append("|" + "---|" * (1 + len(contenders) + len(base)))
    ratios = {c: [] for c in base}
    for p in progs:
        cells = []
        for c in contenders:
            s = stats.get((p, c))
            cells.append(f"{compare.fmt_ms(s['median'])} ({compare.fmt_ms(s['min'])}-{compare.fmt_ms(s['max'])})"
                         if s else "failed" if (p, c) in errors else "-")
        rc = []
        for c in base:
            a, b = stats.get((p, "arrc")), stats.get((p, c))
            if a and b:
                ratios[c].append(a["median"] / b["median"])
                rc.append(f"{ratios[c][-1]:.2f}")
            else:
                rc.append("-")
        L.append("| " + " | ".join([p] + cells + rc) + " |")
    if base:
        gm = {c: compare.gmean(ratios[c]) for c in base}
        L.append("| **geometric mean** | " + " | ".join("" for _ in contenders) + " | "
                 + " | ".join(f"**{gm[c]:.2f}**" if gm[c] else "-" for c in base) + " |")
    L.append("")
    L.append("## Memory bandwidth\n")
    copy, rows = bandwidths(page)
    if copy:
        L.append(f"Device-to-device copy (`cudaMemcpy` of saxpy's `x`, bytes read plus written): "
                 f"{copy:.0f} GB/s. The memory-bound programs: the bytes they must move at least "
                 "(suite.min_bytes) over the median time, in GB/s and as a fraction of the copy's.\n")
    else:
        L.append("No copy yardstick (it needs nvcc and a GPU): GB/s only.\n")
    L.append("| program | MB moved | " + " | ".join(LABEL[c] for c in contenders) + " |")
    L.append("|" + "---|" * (2 + len(contenders)))
    for p, nb, cells in rows:
        L.append(f"| {p} | {nb / 1e6:.1f} | " + " | ".join(
            (f"{cells[c]:.1f}" + (f" ({cells[c] / copy:.0%})" if copy else "")) if c in cells else "-"
            for c in contenders) + " |")
    L.append("")
    L.append("## Result agreement\n")
    bad = []
    for p in progs:
        ref = sigs.get((p, "arrc"))
        for c in base:
            s = sigs.get((p, c))
            if ref is not None and s is not None and not compare.agree(s, ref):
                bad.append(f"{p}: {LABEL[c]} gives {compare.fmt_sig(s)}, arrc {compare.fmt_sig(ref)}")
    L.append("Signatures (a scalar; an array's size and f64 sum) against arrc's, relative tolerance "
             f"{compare.TOLERANCE}: " + ("all agree." if not bad else "") + "\n")
    L.extend(f"- {b}" for b in bad)
    if errors:
        L.append("\n## Failures\n")
        for (p, c), e in sorted(errors.items()):
            L.append(f"- {p} / {LABEL[c]}: `{e[:400]}`")
    L.append("")
    os.makedirs(os.path.dirname(os.path.abspath(out_md)), exist_ok=True)
    with open(out_md, "w") as f:
        f.write("\n".join(L))
    with open(os.path.join(page["work"], "gpu-results.json"), "w") as f:
        json.dump(dict(samples={f"{p}/{c}": v for (p, c), v in samples.items()},
                       signatures={f"{p}/{c}": v for (p, c), v in sigs.items()},
                       errors={f"{p}/{c}": v for (p, c), v in errors.items()},
                       copy_us=page["copy_times"], meta=meta, gpu=page["gpu"]), f, indent=1)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
