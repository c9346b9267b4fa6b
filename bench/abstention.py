"""Calibrating abstention: how well candidate signals separate unanswerable questions,
and the trade-off of the sufficiency check's two settings, from a finished run.

Reads a finished ``deepread eval`` run (its trajectories; the agent is not run again),
rebuilds what each question was shown from the coordinates of every observation and
computes, per question:

- ``support``: the best local-MiniLM cosine between what the question asks
  (:func:`~deepread.text.questions.asked`) and a shown paragraph — what the check compares
  with ``support_threshold``, since the extractive answer always quotes the shown
  paragraph closest in meaning (:mod:`deepread.extractive.policy`);
- ``unused``: the question's specific words the document never uses
  (:mod:`deepread.nodes.sufficiency.unused_terms`) — with any, the check wants
  ``unused_term_support`` instead;
- ``answer_type``: the kind of fact the question asks for that the cited paragraphs (and
  their section titles) do not hold (:mod:`deepread.nodes.sufficiency.answer_type`), or None — with
  one, the check (``answer_type_check``) counts the answer unsupported. The cited
  paragraphs are the run's citations; an abstained run has none, and stands in the three
  shown paragraphs closest to the question (the extractive answer quotes the closest
  first);
- older candidate signals, kept for comparison: ``cover_all`` / ``cover_best`` (share of
  the question's content words in everything shown / the best shown paragraph with its
  section title), ``idf_all`` / ``idf_best`` (the same, idf-weighted over the document's
  paragraphs), ``in_doc`` (idf-weighted share the document uses at all), ``dense_shown`` /
  ``dense_top`` (the collection's own embedding model: best shown / best in the document).

It prints (1) for each single signal and each ceiling on false abstention the threshold
that keeps under it and the share of unanswerable questions caught; (2) the check's
trade-off: for each ``support_threshold`` τ and ``unused_term_support`` τᵤ (``off`` =
0), with the answer-type rule off and on, the share of unanswerable and of answerable
questions it would abstain on, and the best pair under each ceiling; (3) per question
type at the shipped settings. A benchmark without unanswerable questions
(FinanceBench) gets the false-abstention column only.

*Approximation:* the run's reads are fixed. A setting stricter than the run's makes the
check fail on questions whose run passed it at once, and the real check would then read
one more section before deciding — which the trajectory does not hold, so such a
question is scored on what it was shown; its support could only have gone up. Confirm
the chosen pair with a real run (``DEEPREAD_SUPPORT_THRESHOLD=… DEEPREAD_UNUSED_TERM_SUPPORT=…
deepread eval …``).

With ``--halves`` (SyllabusQA, issue 25) it also asks whether a signal carries over to
documents nobody tuned on: the questions are split by :func:`syllabus_halves.halves`
(tuning half, kept-out half), each signal's separation (ROC AUC: the chance an
unanswerable question scores below an answerable one) is given per half, and each
signal's threshold — and the check's best (τ, τᵤ, answer type) — is chosen on the
tuning half (most caught at ≤ 0.10 false abstention) and applied unchanged to the
kept-out half.

Run:  python bench/abstention.py --out EVAL_OUT --store STORE --collection NAME [--halves]
Writes bench/out/abstention-<collection>.json.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from _common import machine, machine_line, table, write_json

from deepread.corpus.index import Index
from deepread.evaluation.records import read_records, trajectory_path
from deepread.nodes.context import Context
from deepread.nodes.sufficiency.answer_type import missing
from deepread.nodes.sufficiency.support import content_words
from deepread.nodes.sufficiency.unused_terms import document_words, unused_terms
from deepread.stores.embeddings import local_embeddings
from deepread.text.questions import asked

_COORD = re.compile(r"^(\d+):(\d+):(\d+)(?:-(\d+))?$")
_TAGS = re.compile(r"<[^>]+>")
CEILINGS = (0.03, 0.05, 0.08, 0.10)
#: The grid of the check's trade-off table (τ rows, τᵤ columns; 0 = off).
TAUS = tuple(round(0.28 + 0.01 * i, 2) for i in range(19))
UNUSED = (0.0, 0.36, 0.38, 0.40, 0.42, 0.44, 0.46, 0.50)


def shown_of(record: dict) -> list[tuple[int, int, int]]:
    out = []
    for obs in record.get("observations") or []:
        for coord in obs.get("shown") or []:
            m = _COORD.match(coord)
            if m:
                d, s, a = int(m[1]), int(m[2]), int(m[3])
                out += [(d, s, p) for p in range(a, int(m[4] or a) + 1)]
    return list(dict.fromkeys(out))


class DocStats:
    """Document frequencies of content words over one document's paragraphs."""

    def __init__(self, index: Index, doc_id: int) -> None:
        doc = index.collection.document(doc_id)
        self.df: Counter[str] = Counter()
        self.n = 0
        for sec in doc.sections:
            if not sec.n_para:
                continue
            for p in index.read(doc_id, sec.sec_id).paragraphs:
                self.df.update(content_words(_TAGS.sub(" ", p.text)))
                self.n += 1

    def idf(self, word: str) -> float:
        return math.log((self.n + 1) / (self.df.get(word, 0) + 0.5))


def weighted(wanted: set[str], have: set[str], weight) -> float:
    total = sum(weight(w) for w in wanted)
    return sum(weight(w) for w in wanted & have) / total if total else 1.0


class Vectors:
    """Paragraph vectors, each computed once per run (the questions about one document
    are shown mostly the same paragraphs): by the local MiniLM model, as the check
    (:func:`~deepread.nodes.sufficiency.support.dense_support`), and by the collection's own."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.kept: dict[tuple[bool, str], np.ndarray] = {}

    def _embed(self, texts: list[str], own: bool) -> np.ndarray:
        if own:
            m = np.array(self.index.embeddings.embed_documents(texts))
            return m / (np.linalg.norm(m, axis=1, keepdims=True) + 1e-9)
        return local_embeddings().embed_array(texts)  # L2-normalised

    def cosines(self, query: str, raw: list[str], own: bool) -> list[float]:
        """The cosine between ``query`` and each of the paragraphs ``raw`` (0 for an
        empty one)."""
        texts = [" ".join(r.split()) for r in raw]
        new = [t for t in dict.fromkeys(texts) if t and (own, t) not in self.kept]
        if new:
            for text, vector in zip(new, self._embed(new, own), strict=True):
                self.kept[(own, text)] = vector
        q = self._embed([query], own)[0]
        return [float(self.kept[(own, t)] @ q) if t else 0.0 for t in texts]

    def best(self, query: str, raw: list[str], own: bool) -> float:
        """The highest cosine between ``query`` and one of the paragraphs ``raw``."""
        return max(self.cosines(query, raw, own), default=0.0)


def cited_of(
    record: dict, coords: list[tuple[int, int, int]], cosines: list[float]
) -> list[tuple[int, int, int]]:
    """The paragraphs the run's answer cites; for an answer without citations (an
    abstention) the three shown closest to the question."""
    cited = [
        tuple(int(x) for x in c.split(":"))
        for c in record.get("citations") or []
        if _COORD.match(c)
    ]
    if cited:
        return cited
    ranked = sorted(range(len(coords)), key=lambda i: -cosines[i])
    return [coords[i] for i in ranked[:3]]


def features(
    record: dict, index: Index, stats: dict[int, DocStats], vectors: Vectors
) -> dict[str, float]:
    wanted = content_words(record["question"])
    coords = shown_of(record)
    texts, raw, kept = [], [], []
    for d, s, p in coords:
        got = index.read(d, s, p, p).paragraphs
        title = index.collection.document(d).sections[s].title
        if got:
            texts.append(content_words(f"{title} {_TAGS.sub(' ', got[0].text)}"))
            raw.append(_TAGS.sub(" ", got[0].text))
            kept.append((d, s, p))
    cosines = vectors.cosines(asked(record["question"]), raw, own=False)
    cited = []
    for d, s, p in cited_of(record, kept, cosines):
        got = index.read(d, s, p, p).paragraphs
        if got:
            cited += [got[0].text, index.collection.document(d).sections[s].title]
    want = missing(asked(record["question"]), cited)
    doc_id = coords[0][0] if coords else None
    if doc_id is not None and doc_id not in stats:
        stats[doc_id] = DocStats(index, doc_id)
    st = stats.get(doc_id)
    every = set().union(*texts) if texts else set()

    def plain(_: str) -> float:
        return 1.0

    idf = st.idf if st else plain
    vector = index.embeddings.embed_query(record["question"])
    top = index.collection.rank(
        record["question"], vector, 1, "dense", [doc_id] if doc_id is not None else None
    )
    return {
        "support": max(cosines, default=0.0),
        "answer_type": want.describe() if want else None,
        "unused": unused_terms(asked(record["question"]), document_words(index, doc_id))
        if doc_id is not None
        else [],
        "dense_top": top[0][0].score if top else 0.0,
        "dense_shown": vectors.best(record["question"], raw, own=True),
        "cover_all": weighted(wanted, every, plain),
        "cover_best": max((weighted(wanted, t, plain) for t in texts), default=0.0),
        "idf_all": weighted(wanted, every, idf),
        "idf_best": max((weighted(wanted, t, idf) for t in texts), default=0.0),
        "in_doc": weighted(wanted, set(st.df) if st else set(), idf),
    }


def sweep(rows: list[tuple[bool, float]], ceiling: float) -> tuple[float, float, float]:
    """The highest threshold whose false abstention stays ≤ ``ceiling``: (threshold,
    false abstention, abstention on unanswerable). Abstain when signal < threshold."""
    answerable = sorted(v for a, v in rows if a)
    unanswerable = [v for a, v in rows if not a]
    best = (0.0, 0.0, 0.0)
    for t in sorted({v for _, v in rows} | {1.01}):
        false = sum(v < t for v in answerable) / len(answerable)
        if false > ceiling:
            break
        caught = sum(v < t for v in unanswerable) / len(unanswerable) if unanswerable else 0
        best = (t, false, caught)
    return best


def abstains(p: dict, tau: float, tau_unused: float, answer_type: bool = False) -> bool:
    """Whether the check at (τ, τᵤ) abstains on question ``p`` (as ``needed_support``),
    with the answer-type rule when ``answer_type``."""
    needed = max(tau, tau_unused) if p["unused"] else tau
    return p["support"] < needed or (answer_type and p["answer_type"] is not None)


def rate(
    per: list[dict], tau: float, tau_unused: float, answerable: bool, answer_type: bool = False
) -> float | None:
    chosen = [p for p in per if p["answerable"] == answerable]
    return (
        sum(abstains(p, tau, tau_unused, answer_type) for p in chosen) / len(chosen)
        if chosen
        else None
    )


def cell(caught: float | None, false: float | None) -> str:
    return f"{caught:.3f} / {false:.3f}" if caught is not None else f"– / {false:.3f}"


def trade_off(per: list[dict], answer_type: bool) -> tuple[list[list[object]], dict]:
    """Rows of the (τ, τᵤ) table and, per ceiling, the pair catching most."""
    rows, grid = [], []
    for tau in TAUS:
        row: list[object] = [tau]
        for tu in UNUSED:
            caught = rate(per, tau, tu, False, answer_type)
            false = rate(per, tau, tu, True, answer_type)
            row.append(cell(caught, false) if tu == 0 or tu > tau else "")
            if tu == 0 or tu > tau:
                grid.append((tau, tu, caught, false))
        rows.append(row)
    best = {}
    for ceiling in CEILINGS:
        ok = [g for g in grid if g[3] is not None and g[3] <= ceiling]
        if ok:
            tau, tu, caught, false = max(ok, key=lambda g: (g[2] or 0.0, -g[3], g[0]))
            best[str(ceiling)] = {
                "support_threshold": tau,
                "unused_term_support": tu,
                "answer_type_check": answer_type,
                "caught": caught,
                "false": false,
            }
    return rows, best


def auc(pairs: list[tuple[bool, float]]) -> float | None:
    """The chance an unanswerable question's signal is below an answerable one's (ties
    half): how well abstaining below a threshold can separate them at all."""
    answerable = np.array([v for a, v in pairs if a])
    unanswerable = np.array([v for a, v in pairs if not a])
    if not len(answerable) or not len(unanswerable):
        return None
    below = (unanswerable[:, None] < answerable[None, :]).mean()
    tied = (unanswerable[:, None] == answerable[None, :]).mean()
    return round(float(below + tied / 2), 3)


#: The false-abstention ceiling a setting is chosen under on the tuning half.
HALVES_CEILING = 0.10


def by_halves(per: list[dict], names: list[str]) -> tuple[list[list[object]], dict]:
    """Each signal (and the check) tuned on the tuning half, applied to the kept-out
    half: rows ``[signal, AUC tuning, AUC kept, threshold, tuning caught / false, kept
    caught / false]``."""
    from syllabus_halves import halves

    tuning, kept = halves([p["doc"] for p in per])
    tune = [p for p in per if p["doc"] in tuning]
    held = [p for p in per if p["doc"] in kept]

    def applied(ps: list[dict], abstain) -> tuple[float, float]:
        un = [abstain(p) for p in ps if not p["answerable"]]
        an = [abstain(p) for p in ps if p["answerable"]]
        return sum(un) / len(un), sum(an) / len(an)

    rows: list[list[object]] = []
    out: dict = {"tuning": sorted(tuning), "kept": sorted(kept)}
    for name in names:
        t, false, caught = sweep([(p["answerable"], p[name]) for p in tune], HALVES_CEILING)
        k_caught, k_false = applied(held, lambda p, name=name, t=t: p[name] < t)
        a_tune = auc([(p["answerable"], p[name]) for p in tune])
        a_kept = auc([(p["answerable"], p[name]) for p in held])
        rows.append(
            [name, a_tune, a_kept, round(t, 3), cell(caught, false), cell(k_caught, k_false)]
        )
        out[name] = {"auc": [a_tune, a_kept], "threshold": t, "kept": [k_caught, k_false]}
    for answer_type in (False, True):
        _, best = trade_off(tune, answer_type)
        b = best.get(str(HALVES_CEILING))
        if not b:
            continue
        tau, tu = b["support_threshold"], b["unused_term_support"]
        k_caught, k_false = applied(
            held, lambda p, tau=tau, tu=tu, on=answer_type: abstains(p, tau, tu, on)
        )
        label = (
            f"the check (τ {tau}, τᵤ {tu or 'off'}, answer type {'on' if answer_type else 'off'})"
        )
        rows.append([label, "", "", "", cell(b["caught"], b["false"]), cell(k_caught, k_false)])
        out[label] = {"tuning": [b["caught"], b["false"]], "kept": [k_caught, k_false]}
    return rows, out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, help="a deepread eval output folder")
    ap.add_argument("--variant", default="deepread")
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", required=True)
    ap.add_argument(
        "--halves",
        action="store_true",
        help="tune on one half of the documents, apply to the other",
    )
    args = ap.parse_args()
    # the last record per question, as the run's summary counts a resumed run
    records = list(read_records(trajectory_path(Path(args.out), args.variant)).values())
    stats: dict[int, DocStats] = {}
    per: list[dict] = []
    with Index.open(args.store, args.collection) as index:
        vectors = Vectors(index)
        for r in records:
            answerable = r["gold"].get("answerable", True)
            per.append(
                {
                    "id": r["id"],
                    "type": r.get("type") or "",
                    "answerable": answerable,
                    "abstained": r["stop_reason"] == "no_evidence",
                    "doc": r["gold"].get("doc") or "",
                    **features(r, index, stats, vectors),
                }
            )
    names = [k for k, v in per[0].items() if isinstance(v, float)]
    m = machine()
    print(machine_line(m))
    n_ans = sum(p["answerable"] for p in per)
    n_un = len(per) - n_ans

    def share(kept: list[bool]) -> str:
        return f"{sum(kept) / len(kept):.3f}" if kept else "–"

    print(
        f"{len(per)} questions, {n_un} unanswerable; as run: abstains on "
        f"{share([p['abstained'] for p in per if not p['answerable']])} of unanswerable, "
        f"{share([p['abstained'] for p in per if p['answerable']])} of answerable\n"
    )
    rows = []
    found = {}
    for name in names:
        pairs = [(p["answerable"], p[name]) for p in per]
        for ceiling in CEILINGS:
            t, false, caught = sweep(pairs, ceiling)
            rows.append([name, ceiling, t, false, caught])
            found[f"{name}@{ceiling}"] = {"threshold": t, "false": false, "caught": caught}
    print("Single signals (abstain below the threshold):")
    print(
        table(
            [
                "signal",
                "false-abstention ceiling",
                "threshold",
                "false abstention",
                "abstains on unanswerable",
            ],
            rows,
        )
    )
    typed = Counter((p["answerable"], p["answer_type"] is not None) for p in per)
    print(
        f"Answer type missing from the cited paragraphs: {typed[(False, True)]} of {n_un} "
        f"unanswerable, {typed[(True, True)]} of {n_ans} answerable questions\n"
    )
    best = {}
    for answer_type in (False, True):
        grid, found_best = trade_off(per, answer_type)
        best[f"answer_type_check={answer_type}"] = found_best
        print(
            f"\nThe check's trade-off with answer_type_check={answer_type}, abstains on "
            "unanswerable / answerable, per support_threshold (rows) and "
            "unused_term_support (columns; off = 0):"
        )
        print(table(["τ \\ τᵤ", *[f"{u:.2f}" if u else "off" for u in UNUSED]], grid))
        print(
            "\nBest pair under each false-abstention ceiling"
            + (":" if n_un else " (no unanswerable questions: read the columns above instead):")
        )
        print(
            table(
                [
                    "ceiling",
                    "support_threshold",
                    "unused_term_support",
                    "abstains on unanswerable",
                    "on answerable",
                ],
                [
                    [
                        c,
                        b["support_threshold"],
                        b["unused_term_support"],
                        "–" if b["caught"] is None else b["caught"],
                        b["false"],
                    ]
                    for c, b in found_best.items()
                    if n_un
                ],
            )
        )
    shipped = Context()
    tau, tu = shipped.support_threshold, shipped.unused_term_support
    on = shipped.answer_type_check
    kinds = sorted({p["type"] for p in per})
    print(
        f"\nPer question type at the shipped settings (τ = {tau}, τᵤ = {tu}, "
        f"answer_type_check={on}): abstains (approximated) / as run"
    )
    print(
        table(
            ["type", "questions", "with unused words", "answer type missing", "abstains", "as run"],
            [
                [
                    k,
                    len(ps := [p for p in per if p["type"] == k]),
                    sum(bool(p["unused"]) for p in ps),
                    sum(p["answer_type"] is not None for p in ps),
                    sum(abstains(p, tau, tu, on) for p in ps) / len(ps),
                    sum(p["abstained"] for p in ps) / len(ps),
                ]
                for k in kinds
            ],
        )
    )
    halves_out = None
    if args.halves:
        rows, halves_out = by_halves(per, names)
        print(
            f"\nBy halves: tuned on the tuning half (≤ {HALVES_CEILING} false abstention), "
            "applied to the half kept out of tuning; abstains on unanswerable / answerable:"
        )
        print(
            table(
                ["signal", "AUC tuning", "AUC kept out", "threshold", "tuning half", "kept out"],
                rows,
            )
        )
    write_json(
        f"abstention-{args.collection}",
        {
            "machine": m,
            "run": str(args.out),
            "sweep": found,
            "check": best,
            "halves": halves_out,
            "questions": per,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
