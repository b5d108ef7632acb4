#!/usr/bin/env python3
"""Totals from bench/passes/run.py outputs, including partial runs (a run
stopped before its totals): per level and group (npm, cO0, cO2, all), sums of
sizes (ratio of sums), wall and CPU time (ratio of sums; wasm-opt's times are
recovered from tilt's and the row's ratio) and the max of peak RSS ratios'
inputs. Usage: summarize.py OUTPUT.txt..."""
import re
import sys


def rows(path):
    level, hdr = None, None
    for line in open(path):
        m = re.match(r"## -(\S+)", line)
        if m:
            level, hdr = m.group(1), None
            continue
        if not line.startswith("|") or "---" in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "module":
            hdr = cells
            continue
        if hdr and level and not cells[0].startswith("**"):
            yield level, dict(zip(hdr, cells))


def main():
    acc = {}
    for path in sys.argv[1:]:
        for level, r in rows(path):
            label = r["module"]
            group = label.split("/")[0] if label.startswith("cO") else "npm"
            tools = [t for t in ("wo108", "wo132") if t in r and r[t] not in ("FAIL", "")]
            try:
                ts, tt, tm = int(r["tilt"]), float(r["tilt s"]), float(r["tilt MB"])
            except (KeyError, ValueError):
                continue
            for t in tools:
                k = t[2:]
                try:
                    ws = int(r[t])
                    rt, rm, rc = float(r["time /" + k]), float(r["mem /" + k]), float(r["cpu /" + k])
                except (KeyError, ValueError):
                    continue
                for g in (group, "all"):
                    a = acc.setdefault((level, g, t), [0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0])
                    a[0] += ts
                    a[1] += ws
                    a[2] += tt
                    a[3] += tt / rt if rt else 0
                    a[4] = max(a[4], tm)
                    a[5] = max(a[5], tm / rm if rm else 0)
                    a[6] += rc * 1.0  # mean of per-module CPU ratios
                    a[7] += 1.0
                    a[8] += 1 if r.get("run", "") in ("same", "") else 0
    print("| level | modules | vs | n | size tilt/wo (sum) | wall tilt/wo (sum) | peak RSS tilt/wo (max) | CPU tilt/wo (mean of per-module ratios) |")
    print("|---|---|---|---|---|---|---|---|")
    order = {"O2": 0, "Os": 1, "Oz": 2, "O3": 3}
    for (level, g, t) in sorted(acc, key=lambda k: (order.get(k[0], 9), k[1] == "all", k[1], k[2])):
        a = acc[(level, g, t)]
        print("| -%s | %s | %s | %d | %.3f | %.2f | %.2f | %.2f |" % (
            level, g, t, a[7], a[0] / a[1], a[2] / a[3] if a[3] else 0, a[4] / a[5] if a[5] else 0, a[6] / a[7]))


if __name__ == "__main__":
    main()
