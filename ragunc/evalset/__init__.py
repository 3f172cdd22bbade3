"""Evaluation sets built from the corpus: sampled chunks, generated questions (an OpenAI-compatible
endpoint or an offline template writer), the round-trip / uniqueness / leakage / duplicate filters,
unanswerable negatives, a frozen versioned folder, real questions merged in, and the recall measured
on it with intervals clustered by source document.  The only place in ragunc with an LLM client.
May import ``stats``, ``data``, ``corpus``, ``retrieval`` and ``ranking``."""

from .build import FUNNEL, BuildPlan, BuildResult, FilterSettings, build_evalset, plan_evalset
from .evaluate import EvalsetReport, evaluate_evalset
from .filters import BM25Ranker
from .generators import CallFailed, GenerationStopped, Generator, OfflineGenerator, OpenAIGenerator, Task
from .real import AddResult, add_questions
from .sampling import DEFAULT_MIX, QUESTION_TYPES, sample_chunks
from .store import REVIEW_LISTS, EvalSet, load_evalset

__all__ = [
    "DEFAULT_MIX",
    "FUNNEL",
    "QUESTION_TYPES",
    "REVIEW_LISTS",
    "AddResult",
    "BM25Ranker",
    "BuildPlan",
    "BuildResult",
    "CallFailed",
    "EvalSet",
    "EvalsetReport",
    "FilterSettings",
    "GenerationStopped",
    "Generator",
    "OfflineGenerator",
    "OpenAIGenerator",
    "Task",
    "add_questions",
    "build_evalset",
    "evaluate_evalset",
    "load_evalset",
    "plan_evalset",
    "sample_chunks",
]
