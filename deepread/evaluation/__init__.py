"""Evaluation harness: run DeepRead and its baselines over a QA set and measure them.

``deepread eval`` (and :func:`run_eval` from Python) answers every question of a
dataset — deepread's JSONL, or FinanceBench's JSONL and SyllabusQA's CSV as published,
whose questions are each scoped to their own PDF and paired with a flat baseline of the
same PDF at the same spend — in several modes: ``deepread``, ``search-o1`` (retrieve
only), ``read-only`` (read_section only), ``dense-rag`` (one pass over 800/400-token
chunks) and budget-matched flat baselines ``flat-<size>@<budget>``. It records
per-question trajectories, the paper's metrics (§4.3–4.4: judge accuracy, S(s→r),
C_s/C_r, tool calls, tokens) and how much gold evidence each mode located and showed
the model. ``deepread synth`` writes multi-document QA pairs with the paper's Fig. 7
prompt.
"""

from deepread.evaluation.config import EvalConfig
from deepread.evaluation.dataset import Dataset, Evidence, Question
from deepread.evaluation.formats import load_dataset, read_dataset
from deepread.evaluation.modes import DEFAULT_MODES, ModeSpec, parse_mode
from deepread.evaluation.runner import EvalResult, run_eval

__all__ = [
    "DEFAULT_MODES",
    "Dataset",
    "EvalConfig",
    "EvalResult",
    "Evidence",
    "ModeSpec",
    "Question",
    "load_dataset",
    "parse_mode",
    "read_dataset",
    "run_eval",
]
