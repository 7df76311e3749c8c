#!/usr/bin/env python3
"""Whether two runs of the same cases agree on energy per op within their stated
uncertainties (|a - b| <= ua + ub), case by case, for every case both reports measured.

Prints, for the uncertainty as each report states it and for the counter's part alone (the
rule before launch_rate_uncertainty_j existed), how many pairs agree and the median and
largest relative uncertainty. Records written before that field existed get it computed
from their own fields (model/energy.hpp: launch_rate_uncertainty). With --fixture, writes
the energy fields of every pair to a small JSON file: tests/data/energy_pairs_h200.json was
made so from two runs of configs/energy.json on an H200, and test_energy.cpp checks the rule
against it.

  scripts/energy_agreement.py energy-1.json energy-2.json [--fixture pairs.json]
"""

import argparse
import json
import statistics
import sys

# The fields the rule reads (EnergyMeasurement); the fixture keeps these alone.
FIELDS = ["update_interval_s", "resolution_j", "windows", "window_s", "energy_j", "launches", "extra_launches",
          "extra_s", "includes_timed_samples", "window_energy_per_op_j", "power_w", "energy_per_op_j", "uncertainty_j"]


def load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return {record["id"]: record for record in json.load(handle)["results"]}
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        sys.exit(f"energy_agreement.py: cannot read {path} as a gpubench JSON report: {error}")


def measured(record):
    energy = record.get("energy") or {}
    return energy if energy.get("energy_per_op_j") is not None else None


def launch_rate_part(energy):
    """power x |window_s / launches - extra_s / extra_launches| where the window mixes both."""
    if "launch_rate_uncertainty_j" in energy and energy["launch_rate_uncertainty_j"] is not None:
        return energy["launch_rate_uncertainty_j"]
    timed = energy["launches"] - energy["extra_launches"]
    if not energy["includes_timed_samples"] or energy["extra_launches"] <= 0 or timed <= 0 or energy["extra_s"] <= 0:
        return 0.0
    return energy["power_w"] * abs(energy["window_s"] / energy["launches"] - energy["extra_s"] / energy["extra_launches"])


def counter_part(energy):
    """The stated uncertainty less its launch-rate part (or all of it, for older records)."""
    if energy.get("launch_rate_uncertainty_j") is not None:
        return energy["uncertainty_j"] - energy["launch_rate_uncertainty_j"]
    return energy["uncertainty_j"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--fixture", help="write the pairs' energy fields to this JSON file")
    args = parser.parse_args()
    first, second = load(args.first), load(args.second)
    pairs = []
    for case_id, record in first.items():
        other = second.get(case_id)
        a, b = measured(record), measured(other) if other else None
        if a and b:
            pairs.append((case_id, a, b))
    if not pairs:
        sys.exit("energy_agreement.py: the two reports have no case with an energy figure in common")

    def summary(rule):
        agree = [abs(a["energy_per_op_j"] - b["energy_per_op_j"]) <= rule(a) + rule(b) for _, a, b in pairs]
        relative = [rule(e) / e["energy_per_op_j"] for _, a, b in pairs for e in (a, b)]
        return agree, statistics.median(relative), max(relative)

    rules = [("counter part alone", counter_part), ("with the launch-rate part", lambda e: counter_part(e) + launch_rate_part(e))]
    print(f"{len(pairs)} cases measured in both reports")
    for name, rule in rules:
        agree, median, largest = summary(rule)
        print(f"{name}: {sum(agree)} of {len(pairs)} agree; relative uncertainty median {median:.1%}, largest {largest:.1%}")
        for (case_id, a, b), ok in zip(pairs, agree):
            if not ok:
                print(f"  disagree: {case_id}: {a['energy_per_op_j']:.4g} +- {rule(a):.2g} J against "
                      f"{b['energy_per_op_j']:.4g} +- {rule(b):.2g} J")
    if args.fixture:
        trimmed = [{"id": case_id, "runs": [{k: e[k] for k in FIELDS} for e in (a, b)]} for case_id, a, b in pairs]
        with open(args.fixture, "w", encoding="utf-8") as handle:
            json.dump({"source": [args.first, args.second], "pairs": trimmed}, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()
