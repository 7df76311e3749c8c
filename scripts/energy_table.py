#!/usr/bin/env python3
"""The J/op and GFLOP/J (GB/J) table of docs/PERFORMANCE.md from gpubench JSON reports
(of configs/energy.json): per case, the energy per op with its uncertainty, the case's
power (the counter over the window), the window and the untimed runs that lengthened it,
and the efficiency; cases without a figure give the reason. With two reports of the same
cases, a column says whether the two figures agree within their stated uncertainties
(|a - b| <= ua + ub), and the exit status is 1 when some case disagrees. Then the energy
crossover of each op and dtype, from the reports' summary.

  gpubench run --config configs/energy.json --format json --out energy-1.json
  gpubench run --config configs/energy.json --format json --out energy-2.json
  scripts/energy_table.py energy-1.json energy-2.json > energy.md
"""

import argparse
import json
import sys

# The ops whose rate is a flop rate (the op table's shows_flop_rate); the others are per byte.
FLOP_OPS = {"matmul", "spmv"}


def load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, json.JSONDecodeError) as error:
        sys.exit(f"energy_table.py: cannot read {path}: {error}")


def joules(value, uncertainty=None):
    for scale, unit in ((1, "J"), (1e-3, "mJ"), (1e-6, "uJ"), (1e-9, "nJ")):
        if abs(value) >= scale or unit == "nJ":
            text = f"{value / scale:.3g}"
            if uncertainty is not None:
                text += f" ± {uncertainty / scale:.2g}"
            return f"{text} {unit}"
    return "-"


def efficiency(record, energy):
    if record["op"] in FLOP_OPS:
        value, unit = energy.get("gflops_per_j"), "GFLOP/J"
    else:
        value, unit = energy.get("gb_per_j"), "GB/J"
    return f"{value:.3g} {unit}" if value else "-"


def measured(energy):
    return bool(energy) and not energy.get("reason") and energy.get("energy_per_op_j")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", help="a gpubench JSON report")
    parser.add_argument("second", nargs="?", help="a second report of the same cases, for the agreement column")
    args = parser.parse_args()
    first = load(args.report)
    second = {r["id"]: r for r in load(args.second)["results"]} if args.second else {}

    header = "| case | J/op | W (counter) | window | untimed runs | efficiency |"
    if args.second:
        header += " second run J/op | agree |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    disagreements, reasons = 0, {}
    for record in first["results"]:
        energy = record.get("energy")
        if record.get("status") != "ok" or energy is None:
            continue
        if not measured(energy):
            reasons.setdefault(record["device"], energy.get("reason") or "no figure")
            continue
        row = [record["id"], joules(energy["energy_per_op_j"], energy.get("uncertainty_j")), f"{energy['power_w']:.3g}",
               f"{energy['window_s']:.3g} s", str(energy.get("extra_launches", 0)), efficiency(record, energy)]
        if args.second:
            other = (second.get(record["id"]) or {}).get("energy")
            if measured(other):
                a, b = energy["energy_per_op_j"], other["energy_per_op_j"]
                agree = abs(a - b) <= (energy.get("uncertainty_j") or 0) + (other.get("uncertainty_j") or 0)
                disagreements += not agree
                row += [joules(b, other.get("uncertainty_j")), "yes" if agree else "**no**"]
            else:
                row += ["-", "-"]
        print("| " + " | ".join(row) + " |")
    for device, reason in sorted(reasons.items()):
        print(f"\n{device.upper()} cases have no energy figure: {reason}")

    groups = (first.get("summary") or {}).get("groups", [])
    if groups:
        print("\n| op | dtype | variant | GPU uses fewer joules per op from |")
        print("|---|---|---|---|")
        for group in groups:
            crossover = group.get("energy_crossover") or {}
            print(f"| {group['op']} | {group['dtype']} | {group.get('variant') or '-'} | {crossover.get('text', '-')} |")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
