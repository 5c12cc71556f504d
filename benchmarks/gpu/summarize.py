#!/usr/bin/env python3
"""Turns a results folder of benchmarks/gpu/run.sh into one markdown table (stdout) and results.json.

  python3 summarize.py RESULTS_DIR TOTAL_SECONDS > RESULTS_DIR/table.md

Reads env.txt, steps.jsonl (one line per step: status, wall time, cap), sidecars/<step>.json (the
kernel sidecars: compute seconds, phases, device, tf32, peak RSS), jmh-*.json (JMH's JSON results),
peer.json (benchmarks/peer/ntk_peer.py), train.json (benchmarks/peer/train_compare.py),
harness.jsonl (benchmarks/peer/KernelHarness.java) and tf32.json. Standard library only.
"""
import json
import os
import sys


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def gib(b):
    return f"{b / 2**30:.1f} GiB" if isinstance(b, (int, float)) and b > 0 else ""


def main():
    d, total = sys.argv[1], float(sys.argv[2])
    env = {}
    if os.path.exists(os.path.join(d, "env.txt")):
        for line in open(os.path.join(d, "env.txt")):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env.setdefault(k, v)
    steps = [json.loads(line) for line in open(os.path.join(d, "steps.jsonl")) if line.strip()]
    lines = []
    mode = env.get("mode", "").split()[0] if env.get("mode") else "?"
    lines.append(f"### ntk4j GPU check ({mode} mode), {int(total)} s in all")
    lines.append("")
    for k in ("gpu", "python", "java", "g++", "uname", "loadavg", "bundle"):
        if k in env:
            lines.append(f"- {k}: {env[k]}")
    lines.append("")
    lines.append("| step | what | status | wall s | compute s | device, phases, TF32, peak RSS |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    results = {"env": env, "total_s": total, "steps": []}
    for s in steps:
        side = load(os.path.join(d, s["sidecar"])) if s.get("sidecar") else None
        compute = ""
        note = ""
        if side:
            sec = side.get("seconds_train_kernel")
            compute = f"{sec:.2f}" if isinstance(sec, (int, float)) else ""
            ph = side.get("phases_train_kernel") or {}
            phases = "/".join(ph) + " " + "/".join(f"{v:.2f}" for v in ph.values()) + " s" if ph else ""
            note = ", ".join(x for x in (str(side.get("device", "")), phases, str(side.get("tf32", "")),
                                         gib(side.get("peak_rss_bytes"))) if x)
            s["sidecar_summary"] = {k: side.get(k) for k in ("n", "device", "tf32", "seconds_train_kernel",
                                                              "phases_train_kernel", "seconds_total",
                                                              "peak_rss_bytes", "methods")}
        wall = f"{s['wall_s']:.1f}" if s["status"] != "skipped" else ""
        status = s["status"] if s["status"] != "skipped" else "skipped (budget spent)"
        lines.append(f"| {s['step']} | {s['what']} | {status} | {wall} | {compute} | {note} |")
        results["steps"].append(s)
    tf32 = load(os.path.join(d, "tf32.json"))
    if tf32:
        results["tf32"] = tf32
        lines.append("")
        lines.append(f"TF32, float32 ResNet-20 trace kernel on {tf32.get('n')} images, max |K - K_cpu| / max |K_cpu|: "
                     f"--tf32 off {tf32.get('max_rel_diff_tf32_off', float('nan')):.2e}, "
                     f"--tf32 on {tf32.get('max_rel_diff_tf32_on', float('nan')):.2e}")
    jmh_rows = []
    for name in sorted(f for f in os.listdir(d) if f.startswith("jmh-") and f.endswith(".json")):
        for r in load(os.path.join(d, name), []) or []:
            pm = r.get("primaryMetric", {})
            params = ", ".join(f"{k}={v}" for k, v in (r.get("params") or {}).items())
            err = pm.get("scoreError")
            err = f" ± {err:.3g}" if isinstance(err, (int, float)) and err == err else ""
            jmh_rows.append((r.get("benchmark", "").rsplit(".", 2)[-2:], params, f"{pm.get('score', float('nan')):.4g}{err}",
                             pm.get("scoreUnit", "")))
    if jmh_rows:
        results["jmh"] = [{"benchmark": ".".join(b), "params": p, "score": s, "unit": u} for b, p, s, u in jmh_rows]
        lines.append("")
        lines.append("| JMH benchmark | params | score | unit |")
        lines.append("| --- | --- | --- | --- |")
        for b, p, s, u in jmh_rows:
            lines.append(f"| {'.'.join(b)} | {p} | {s} | {u} |")
    peer = load(os.path.join(d, "peer.json"))
    if peer and peer.get("results"):
        results["peer"] = peer
        lines.append("")
        lines.append(f"| peer (torch {peer.get('torch')}, {peer.get('api')}) case | method | device | median ms | min ms |")
        lines.append("| --- | --- | --- | --- | --- |")
        for r in peer["results"]:
            lines.append(f"| {r['case']} | {r['method']} | {r['device']} | {r['ms_median']} | {r['ms_min']} |")
    if jmh_rows and peer and peer.get("results"):
        # ntk4j's structured engine (JMH NtkBenchmark, ms per kernel) against the factorised peer on the same cases
        ours = {}
        for b, p, sc, u in jmh_rows:
            if b[0] == "NtkBenchmark" and "method=structured" in p and u == "ms/op":
                case = dict(kv.split("=", 1) for kv in p.split(", ")).get("useCase")
                ours[case] = float(sc.split(" ")[0])
        rows = [(r["case"], ours[r["case"]], r["ms_median"]) for r in peer["results"]
                if r["method"] == "factorised" and r["case"] in ours]
        if rows:
            lines.append("")
            lines.append("| case | ntk4j structured ms (JMH) | peer factorised median ms | peer time / ntk4j time |")
            lines.append("| --- | --- | --- | --- |")
            for case, a, b in rows:
                lines.append(f"| {case} | {a:.4g} | {b:.4g} | {b / a:.2f}x |")
            results["ntk4j_vs_peer"] = [{"case": c, "ntk4j_ms": a, "peer_ms": b, "ratio": b / a} for c, a, b in rows]
    harness = []
    if os.path.exists(os.path.join(d, "harness.jsonl")):
        harness = [json.loads(line) for line in open(os.path.join(d, "harness.jsonl")) if line.startswith("{")]
    if harness:
        # benchmarks/peer/KernelHarness.java: the peer's cases timed as the peer times them (total kernel, warm)
        results["harness"] = harness
        factorised = {r["case"]: r["ms_median"] for r in (peer or {}).get("results", []) if r["method"] == "factorised"}
        jac = {r["case"]: r["ms_median"] for r in (peer or {}).get("results", []) if r["method"] == "jacrev"}
        lines.append("")
        lines.append("| KernelHarness case | device | ntk4j median ms | factors / contraction / host ms | ops per pair "
                     "| peer median ms (method) | peer time / ntk4j time |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- |")
        for r in harness:
            base = r["case"][:-len("-layers")] if r["case"].endswith("-layers") else r["case"]
            p, how = (factorised[base], "factorised") if base in factorised else (jac.get(base), "jacrev")
            ratio = f"{p / r['ms_median']:.2f}x" if p else ""
            lines.append(f"| {r['case']} | {r.get('device', '')} | {r['ms_median']:.4g} | {r['factors_ms']:.3g} / "
                         f"{r['contraction_ms']:.3g} / {r['host_ms']:.3g} | {r['ops_per_pair']} "
                         f"| {'' if p is None else f'{p:.4g} ({how})'} | {ratio} |")
    train = load(os.path.join(d, "train.json"))
    if train:
        # benchmarks/peer/train_compare.py --json: one row per side and case; ratio = torch epoch / ntk4j epoch
        results["train"] = train
        lines.append("")
        lines.append("| training case | side | epoch s | torch / ntk4j | wall s | wall - epochs s | test acc |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- |")
        for r in train:
            peer = next((p for p in train if p["case"] == r["case"] and p["round"] == r["round"]
                         and p["side"] == "torch"), None)
            ratio = ("" if peer is None or r is peer else
                     ", ".join(f"{a / b:.2f}x" for a, b in zip(peer["seconds"], r["seconds"])))
            acc = r["test_accuracy"][-1] if r.get("test_accuracy") else None
            lines.append(f"| {r['case']} | {r['side']} | {', '.join(f'{x:.2f}' for x in r['seconds'])} | {ratio} "
                         f"| {r['wall']:.1f} | {r['wall'] - sum(r['seconds']):.1f} "
                         f"| {'' if acc is None else f'{acc:.4f}'} |")
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
