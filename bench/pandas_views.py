#!/usr/bin/env python3
"""placelab's characterization views written in pandas, the way the Azure
public dataset notebook (AzurePublicDataset, analysis/Azure Public Dataset -
Trace Analysis.ipynb) computes its figures: read the VM table from CSV; a
distribution is value_counts(normalize=True) sorted by value; a CDF is
groupby(value).size(), its cumsum over its sum.

`placelab bench views` runs this script on a CSV it exports from its own
database (columns vm_id, tenant, subscription, vm_type, start_s, end_s,
cores, memory_gb; one row per VM) and compares both the times and the
numbers with its SQL views. Each view reads only the columns it needs
(usecols), as a notebook cell would, and is timed in two parts: the read
and the computation.

    python3 pandas_views.py --csv vms.csv --reps 3 --out pandas.json

Output (JSON): versions, the row count, and per view the read and compute
seconds of every repetition and the unrounded result rows
({"key": ..., "values": {...}}) that placelab checks against its view.
"""
import argparse
import json
import platform
import sys
import time

import numpy as np
import pandas as pd

LIFETIME_POINTS = [("5m", 300), ("10m", 600), ("15m", 900), ("30m", 1800), ("1h", 3600), ("2h", 7200),
                   ("6h", 21600), ("12h", 43200), ("1d", 86400), ("2d", 172800), ("7d", 604800),
                   ("14d", 1209600), ("30d", 2592000)]

# Above this many positive gaps the Weibull fit uses a 1-in-k sample of
# them, as placelab's interarrival view does (k = gaps // FIT_GAPS).
FIT_GAPS = 1_000_000


def dist_rows(values, name):
    """The notebook's CDF of a column of values: groupby(value).size(), then
    its cumsum over its sum. Rows of (value, count, pct, cdf_pct) in value
    order, as the SQL views give them."""
    counts = values.to_frame("v").groupby("v").size()
    total = counts.sum()
    cdf = counts.cumsum() / total * 100
    pct = counts / total * 100
    return [{"key": str(k), "values": {name: int(c), "pct": float(p), "cdf_pct": float(cc)}}
            for k, c, p, cc in zip(counts.index, counts.values, pct.values, cdf.values)]


def vm_type_share(df):
    share = df["vm_type"].value_counts(normalize=True) * 100
    counts = df["vm_type"].value_counts()
    return [{"key": str(k), "values": {"vms": int(counts[k]), "pct": float(v)}} for k, v in share.items()]


def lifetime_cdf(df):
    life = (df["end_s"] - df["start_s"]).rename("lifetime")
    censored = int(life.isna().sum())
    counts = life.dropna().to_frame().groupby("lifetime").size()  # the notebook's LifetimePlot
    cum = counts.cumsum()
    n = int(counts.sum())
    at = np.searchsorted(counts.index.values, [s for _, s in LIFETIME_POINTS], side="right")
    rows = []
    for (label, _), a in zip(LIFETIME_POINTS, at):
        below = int(cum.values[a - 1]) if a > 0 else 0
        rows.append({"key": label, "values": {"cdf_pct": below / n * 100 if n else None,
                                              "completed_vms": n, "censored_vms": censored}})
    return rows


def tenant_size(df):
    arr = df[df["start_s"] >= 0]
    sizes = arr.groupby(["tenant", "start_s"]).size()
    return dist_rows(sizes, "requests")


def deployment_size(df):
    d = df[df["subscription"].notna() & (df["start_s"] >= 0)].copy()
    d["day"] = np.floor(d["start_s"] / 86400).astype(np.int64)
    per_dep = d.groupby(["subscription", "tenant", "day"]).size().rename("vms").reset_index()
    per_day = per_dep.groupby(["subscription", "day"])["vms"].max()
    return dist_rows(per_day, "subscription_days")


def vm_size_distribution(df):
    rows = []
    for metric in ("cores", "memory_gb"):
        for r in dist_rows(df[metric].dropna(), "vms"):
            r["key"] = metric + "|" + str(float(r["key"]))
            rows.append(r)
    return rows


def weibull_fit(pos):
    """Least squares of ln(-ln(1-F)) on ln(gap) over Bernard's median ranks,
    on a 1-in-k sample of the positive gaps in time order when there are
    more than FIT_GAPS."""
    k = max(1, len(pos) // FIT_GAPS)
    g = np.sort(pos[::k])
    n = len(g)
    i = np.arange(1, n + 1)
    y = np.log(-np.log(1 - (i - 0.3) / (n + 0.4)))
    slope, intercept = np.polyfit(np.log(g), y, 1)
    return float(slope), float(np.exp(-intercept / slope)), n, k


def interarrival_rows(pos, zero):
    shape, scale, n, k = weibull_fit(pos)
    return [{"key": "all", "values": {
        "gaps": int(len(pos)), "zero_gaps": int(zero),
        "mean_gap_s": float(pos.mean()), "median_gap_s": float(np.median(pos)),
        "weibull_shape": shape, "weibull_scale_s": scale, "fit_gaps": n, "fit_stride": k}}]


def interarrival(df):
    # The notebook's idiom: arrivals per creation time with groupby().size(),
    # then the gaps between consecutive distinct times.
    counts = df.loc[df["start_s"] >= 0].groupby("start_s").size()
    gaps = counts.index.to_series().diff().dropna()
    return interarrival_rows(gaps.to_numpy(), (counts - 1).sum())


def interarrival_numpy(df):
    # The same figures by a sort of the start times and numpy's diff: not
    # the notebook's idiom, timed beside it for a fair picture.
    s = np.sort(df.loc[df["start_s"] >= 0, "start_s"].to_numpy())
    gaps = np.diff(s)
    return interarrival_rows(gaps[gaps > 0], (gaps == 0).sum())


VIEWS = {
    "vm_type_share": (["vm_type"], vm_type_share),
    "lifetime_cdf": (["start_s", "end_s"], lifetime_cdf),
    "tenant_size": (["tenant", "start_s"], tenant_size),
    "deployment_size": (["subscription", "tenant", "start_s"], deployment_size),
    "vm_size_distribution": (["cores", "memory_gb"], vm_size_distribution),
    "interarrival": (["start_s"], interarrival),
    "interarrival@numpy": (["start_s"], interarrival_numpy),
}

DTYPES = {"tenant": str, "subscription": str, "vm_type": str}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True, help="the VM table exported by placelab bench views")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of every view (>= 1)")
    ap.add_argument("--views", default=",".join(VIEWS), help="comma-separated views to run")
    ap.add_argument("--out", default="-", help="where to write the JSON (default stdout)")
    a = ap.parse_args()
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    names = [v for v in a.views.split(",") if v]
    for v in names:
        if v not in VIEWS:
            ap.error("unknown view %r (have %s)" % (v, ", ".join(VIEWS)))
    out = {"python": platform.python_version(), "pandas": pd.__version__, "numpy": np.__version__, "views": {}}
    for v in names:
        cols, fn = VIEWS[v]
        res = {"read_s": [], "compute_s": []}
        for _ in range(a.reps):
            t0 = time.perf_counter()
            df = pd.read_csv(a.csv, usecols=cols, dtype={c: DTYPES[c] for c in cols if c in DTYPES})
            t1 = time.perf_counter()
            rows = fn(df)
            t2 = time.perf_counter()
            res["read_s"].append(t1 - t0)
            res["compute_s"].append(t2 - t1)
            out["rows"] = len(df)
            del df
        res["result"] = rows
        out["views"][v] = res
        print("pandas_views: %s read %.2fs compute %.2fs" % (v, res["read_s"][-1], res["compute_s"][-1]), file=sys.stderr)
    s = json.dumps(out)
    if a.out == "-":
        print(s)
    else:
        with open(a.out, "w") as f:
            f.write(s)


if __name__ == "__main__":
    main()
