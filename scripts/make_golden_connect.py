"""Write the Connect draft's case studies as golden traces (tests/golden/connect/*.jsonl).

    .venv/bin/python scripts/make_golden_connect.py

Each trace is the model's own run of one case study (tests/connect/scenarios.py): calls with
the responses and the records written, under profile ``kip``. ``kgspec check`` must accept them
(tests/connect/test_check_connect.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.connect.scenarios import SCENARIOS  # noqa: E402

OUT = ROOT / "tests" / "golden" / "connect"


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        cluster, _ = scenario()
        lines = [{"header": {"format": "kgspec-trace/1", "profile": "kip", "configs": {}}}, *cluster.events]
        (OUT / f"{name}.jsonl").write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
