"""Candidate profiles of Chinese resume bios against their human entity tags.

    python bench/bench_candidates_profile.py [--misses N]

Reads ../shared/data/resumes/zh_ResumeNER/sentences_with_entities.jsonl: sentences of Chinese
executives' resume bios, each entity tagged by hand (NAME, EDU, TITLE, ORG ...). Consecutive
sentences form one bio; a sentence that starts with a NAME starts the next one. Each bio is
profiled the way a dropped resume file is (``parse_resume``: redaction, then the profile) and
measured on two fields:

* **names removed**: every NAME tagged in the bio (two characters or more: a lone surname such
  as "管" is also part of ordinary words) must be gone from the stored resume text and from the
  embedding text. Prints how many survive in each.
* **degree**: the highest degree the bio's EDU tags name (read with the normalizer's degree
  vocabulary; a tag it cannot place, such as "初中学历", is not scored) against the profile's
  ``degree``. The text around the tags holds the traps: "成本科科长", "博士生导师".

Nothing from the data is written anywhere; ``--misses`` prints the ids of bios that fail.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jobpipe.candidates import parse_resume  # noqa: E402
from jobpipe.candidates.vector_text import embedding_text  # noqa: E402
from jobpipe.normalize.experience import DEGREES, degrees_mentioned  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "resumes" / "zh_ResumeNER" / "sentences_with_entities.jsonl"


def bios(path: Path) -> list[dict]:
    out: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        entities = row["entities"]
        if not out or any(e["type"] == "NAME" and e["start"] == 0 for e in entities):
            out.append({"sentences": [], "names": set(), "edu": []})
        out[-1]["sentences"].append(row["text"])
        out[-1]["names"].update(e["span"] for e in entities if e["type"] == "NAME" and len(e["span"]) >= 2)
        out[-1]["edu"].extend(e["span"] for e in entities if e["type"] == "EDU")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", type=int, default=0, help="print the index of up to N failing bios")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA.name} not found (../shared/data is not beside the repo)")
        return 0
    names = in_text = in_vector = 0
    degree_right = degree_scored = 0
    confusion: Counter[tuple[str, str | None]] = Counter()
    missed: list[int] = []
    every = bios(DATA)
    for i, bio in enumerate(every):
        profile = parse_resume(f"bio{i}", "\n".join(bio["sentences"]))
        vector = embedding_text(profile)
        for name in bio["names"]:
            names += 1
            in_text += name in profile.resume_text
            in_vector += name in vector
            if name in vector:
                missed.append(i)
        held = [d for span in bio["edu"] for d in degrees_mentioned(span)]
        if held:
            gold = max(held, key=DEGREES.index)
            degree_scored += 1
            if profile.degree == gold:
                degree_right += 1
            else:
                confusion[(gold, profile.degree)] += 1
                missed.append(i)
    print(f"bios: {len(every)}")
    print(f"names removed: {names - in_text}/{names} from the resume text ({in_text} survive), "
          f"{names - in_vector}/{names} from the embedding text ({in_vector} survive)")
    print(f"degree: {degree_right}/{degree_scored} right ({degree_right / max(degree_scored, 1):.1%})")
    for (gold, got), n in confusion.most_common(6):
        print(f"  tagged {gold}, read {got}: {n}")
    if args.misses:
        print("failing bios:", sorted(set(missed))[: args.misses])
    return 0


if __name__ == "__main__":
    sys.exit(main())
