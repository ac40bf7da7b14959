#!/usr/bin/env python3
"""bench/run's report: reads DIR/rows.jsonl (one line per matrix row: skiff-perf's and
tcp-ceiling's JSON), prints the table, writes DIR/results.csv, DIR/results.json, and
DIR/chart.gp + DIR/chart.dat for gnuplot (DIR/results.png)."""
import csv
import json
import statistics
import sys
from pathlib import Path

COLUMNS = ["row", "iops", "mib_s", "avg_us", "p50_us", "p99_us", "p99.9_us", "max_us",
           "ceiling_iops", "ceiling_mib_s", "ceiling_ratio", "hostmem_ram", "hostmem_ram_of_ceiling",
           "latency_delta_us"]


def median_runs(out: Path):
    """bench/run --repeat N writes N lines per row (one per pass over the matrix, so each row is
    sampled minutes apart, in whichever speed phase the VM is in then). A row is reported as its
    median pass (by IOPS; the lower middle for an even count), whole, so its latency columns come
    from the same run; "runs" keeps every pass's IOPS."""
    groups = {}
    for line in (out / "rows.jsonl").read_text().splitlines():
        r = json.loads(line)
        groups.setdefault(r["name"], []).append(r)
    picked = []
    for runs in groups.values():
        ordered = sorted(runs, key=lambda r: r["skiff"]["iops"])
        median = dict(ordered[(len(ordered) - 1) // 2])
        median["runs"] = [r["skiff"]["iops"] for r in runs]
        median["by_pass"] = {r.get("pass", i + 1): r for i, r in enumerate(runs)}
        picked.append(median)
    return picked


def rows_of(out: Path):
    rows = []
    for r in median_runs(out):
        s, c, lat = r["skiff"], r["ceiling"], r["skiff"]["latency_us"]
        rows.append({
            "row": r["name"], "iops": s["iops"], "mib_s": s["mib_s"], "avg_us": lat["avg"],
            "p50_us": lat["p50"], "p99_us": lat["p99"], "p99.9_us": lat["p99.9"], "max_us": lat["max"],
            "ceiling_iops": c["iops"], "ceiling_mib_s": c["mib_s"],
            "ceiling_ratio": s["iops"] / c["iops"] if c["iops"] else 0.0,
            "profile": r["profile"], "skiff": s, "ceiling": c, "runs": r["runs"], "by_pass": r["by_pass"],
        })
    add_hostmem_ratio(rows)
    return rows


def of_ceiling(run):
    return run["skiff"]["iops"] / run["ceiling"]["iops"] if run["ceiling"]["iops"] else 0.0


def paired(row, base):
    """row against base, pass by pass: (median IOPS ratio, median ratio of the fractions of each
    run's own ceiling, median difference of average latency in us), over the passes that measured
    both (bench/run runs the two of a pair back to back in every pass). None when no pass did."""
    pairs = [(r, base["by_pass"][p]) for p, r in row["by_pass"].items() if p in base["by_pass"]]
    pairs = [(r, b) for r, b in pairs if b["skiff"]["iops"] and of_ceiling(b)]
    if not pairs:
        return None
    return (statistics.median(r["skiff"]["iops"] / b["skiff"]["iops"] for r, b in pairs),
            statistics.median(of_ceiling(r) / of_ceiling(b) for r, b in pairs),
            statistics.median(r["skiff"]["latency_us"]["avg"] - b["skiff"]["latency_us"]["avg"] for r, b in pairs))


def add_hostmem_ratio(rows):
    """hostmem-, aio-, rbd- and ramcopy-<shape> rows get hostmem_ram (the column keeps its first name): their
    IOPS over those of ram-<shape> (the same job against a namespace in the target's own memory);
    0.0 elsewhere. At QD1 it is the inverse of the latency ratio. Both rows of a pair run back to
    back in every pass, so the ratio is taken pass by pass and the column is the median of those
    ratios, not the ratio of the two median rows (which may come from different passes, minutes
    apart, in different speed phases of this machine's VM). latency_delta_us: the median of the
    passes' differences in average latency (row minus ram), the QD1 comparison.

    hostmem_ram_of_ceiling: the same comparison made on each run's fraction of its own ceiling
    (tcp-ceiling runs right after the row): a second view that cancels the VM's speed changes.
    Where both rows saw the same phase the two columns agree."""
    ram = {r["row"][len("ram-"):]: r for r in rows if r["row"].startswith("ram-")}
    for r in rows:
        prefix = next((p for p in ("hostmem-", "aio-", "rbd-", "ramcopy-") if r["row"].startswith(p)), None)
        base = ram.get(r["row"][len(prefix):]) if prefix else None
        both = paired(r, base) if base else None
        r["hostmem_ram"], r["hostmem_ram_of_ceiling"], r["latency_delta_us"] = both or (0.0, 0.0, 0.0)
    # ram sends large reads from its own memory (no copy at all); ramcopy-<shape> copies them as
    # hostmem's DMA does, the comparison of the emulated DMA with a memcpy.
    ram_copy = {r["row"][len("ramcopy-"):]: r for r in rows if r["row"].startswith("ramcopy-")}
    for r in rows:
        base = ram_copy.get(r["row"][len("hostmem-"):]) if r["row"].startswith("hostmem-") else None
        both = paired(r, base) if base else None
        if both:
            r["vs_ram_copy"] = (base, both)


def print_table(rows):
    passes = max(len(r["runs"]) for r in rows) if rows else 1
    head = f"{'row':<32} {'IOPS':>9} {'MiB/s':>8} {'avg us':>7} {'p50':>7} {'p99':>7} {'p99.9':>7} " \
           f"{'ceiling IOPS':>12} {'of ceiling':>10} {'vs ram':>11} {'same, of ceil':>13}"
    if passes > 1:
        head += "  runs (K IOPS)"
    print(head)
    print("-" * len(head))
    lab = False
    for r in rows:
        if not r["ceiling_iops"]:  # lab rows: no TCP ceiling applies
            lab = lab or r["profile"].startswith("lab-")
            ceiling, ratio = f"{'-':>12}", f"{'-':>10}"
        else:
            ceiling, ratio = f"{r['ceiling_iops']:>12.0f}", f"{100 * r['ceiling_ratio']:>9.1f}%"
        vs_ram = f"{100 * r['hostmem_ram']:>10.1f}%" if r["hostmem_ram"] else f"{'':>11}"
        if r["hostmem_ram_of_ceiling"]:
            vs_ram += f" {100 * r['hostmem_ram_of_ceiling']:>12.1f}%"
        runs = ""
        if passes > 1:
            pad = max(0, 11 + 1 + 13 - len(vs_ram))  # the "same, of ceil" column may be empty
            runs = " " * pad + "  " + " ".join(f"{i / 1000:.0f}" for i in r["runs"])
        print(f"{r['row']:<32} {r['iops']:>9.0f} {r['mib_s']:>8.1f} {r['avg_us']:>7.1f} {r['p50_us']:>7.1f} "
              f"{r['p99_us']:>7.1f} {r['p99.9_us']:>7.1f} {ceiling} {ratio} {vs_ram}{runs}")
    if passes > 1:
        print(f"Each row is its median pass of {passes} over the matrix (runs: every pass's IOPS, in order).")
    if any(r["hostmem_ram"] for r in rows):
        print("vs ram: IOPS over the ram row's in the same pass, the two run back to back (hostmem, aio, rbd, ramcopy rows), "
              "median over the passes; QD1 rows also show the median difference in average latency. 'same, of ceil': "
              "each run's fraction of its own tcp-ceiling (taken right after it) over the ram run's, which cancels the VM's "
              "speed changes.")
    for r in rows:
        if r["row"].startswith("hostmem-") and r.get("vs_ram_copy"):
            base, (ratio, same, _) = r["vs_ram_copy"]
            print(f"{r['row']} vs {base['row']} (the ram namespace copying every read, as the DMA does): "
                  f"{100 * ratio:.1f}%, same, of ceil: {100 * same:.1f}%")
    for r in rows:
        if r["hostmem_ram"] and r["row"].endswith("-qd1"):
            print(f"{r['row']}: average latency {r['latency_delta_us']:+.1f} us against the ram row "
                  "(median of the passes' differences)")
    if lab:
        print("lab-rdma-* rows: kernel nvme-rdma + fio against skiff-target over soft-RoCE inside the lab VM "
              "under TCG emulation; compare poll with dpa only, not with the rows above.")


def write_chart(out: Path, rows):
    with open(out / "chart.dat", "w") as f:
        for r in rows:
            if r["ceiling_iops"]:
                f.write(f"\"{r['row']}\\n{100 * r['ceiling_ratio']:.0f}% of ceiling\" {r['iops']:.0f} {r['ceiling_iops']:.0f}\n")
            else:  # a lab row: no ceiling ("?" is gnuplot's missing value)
                f.write(f"\"{r['row']}\\n(lab, TCG)\" {r['iops']:.0f} ?\n")
    (out / "chart.gp").write_text(f"""set terminal pngcairo size 1200,600 noenhanced font ",10"
set output "{out / 'results.png'}"
set title "skiff-target (null namespace, core 0) driven by skiff-perf (core 1) vs. the loopback TCP ceiling"
set datafile missing "?"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set ylabel "IOPS (log scale)"
set grid ytics
set key top right
set xtics scale 0
set bmargin 5
plot "{out / 'chart.dat'}" using 2:xtic(1) title "skiff", '' using 3 title "tcp-ceiling"
""")


def main():
    out = Path(sys.argv[1])
    rows = rows_of(out)
    print_table(rows)
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r["row"]] + [f"{r[c]:.4f}" if c in ("ceiling_ratio", "hostmem_ram", "hostmem_ram_of_ceiling") else f"{r[c]:.1f}" for c in COLUMNS[1:]])
    (out / "results.json").write_text(json.dumps(
        {"rows": [{k: r[k] for k in COLUMNS + ["profile", "skiff", "ceiling", "runs"]} for r in rows]}, indent=2) + "\n")
    write_chart(out, rows)
    print(f"bench/run: wrote {out / 'results.csv'} and {out / 'results.json'}")


if __name__ == "__main__":
    main()
